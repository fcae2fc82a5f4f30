// A long markdown answer for tests of streaming cost: BLOCKS blocks of
// every kind a model writes (paragraphs with inline markup, headings,
// lists, fenced code, tables, quotes, a reference link and its
// definition), none longer than a few hundred characters.
export function longAnswer(blocks: number): string {
  const out: string[] = [];
  for (let i = 0; i < blocks; i++) {
    switch (i % 7) {
      case 0:
        out.push(`## Part ${i}`);
        break;
      case 1:
        out.push(`Paragraph ${i} says *something* about item ${i}, with \`code ${i}\` and a [link][ref${i % 3}] in it.`);
        break;
      case 2:
        out.push(`- item ${i}.1 with **bold**\n- item ${i}.2\n  continued\n- item ${i}.3`);
        break;
      case 3:
        out.push(`\`\`\`go\nfunc f${i}() int {\n\treturn ${i}\n}\n\`\`\``);
        break;
      case 4:
        out.push(`| k | v |\n|---|--:|\n| a${i} | ${i} |\n| b${i} | ${i * 2} |`);
        break;
      case 5:
        out.push(`> A quote ${i},\n> on two lines.`);
        break;
      default:
        out.push(`[ref${i % 3}]: https://example.com/${i % 3}\n\n1. first ${i}\n2. second ${i}`);
    }
  }
  return out.join('\n\n') + '\n';
}

/** The text in pieces of n characters (the last one shorter). */
export function pieces(text: string, n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += n) out.push(text.slice(i, i + n));
  return out;
}
