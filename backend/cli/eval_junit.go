package cli

import (
	"cmp"
	"encoding/xml"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/store"
)

// JUnit XML, as CI systems read it: a testsuite per model, a testcase per
// case × repeat.
type junitSuites struct {
	XMLName xml.Name `xml:"testsuites"`
	Name    string   `xml:"name,attr"`
	junitTally
	Suites []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name string `xml:"name,attr"`
	junitTally
	Timestamp string      `xml:"timestamp,attr,omitempty"`
	Cases     []junitCase `xml:"testcase"`
}

// junitTally is the counts and time a testsuites and each testsuite carry,
// the attributes in the order they are written.
type junitTally struct {
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Errors   int    `xml:"errors,attr"`
	Skipped  int    `xml:"skipped,attr"`
	Time     string `xml:"time,attr"`
}

// add counts t's cases in u (not its time).
func (u *junitTally) add(t junitTally) {
	u.Tests += t.Tests
	u.Failures += t.Failures
	u.Errors += t.Errors
	u.Skipped += t.Skipped
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
	Skipped   *junitProblem `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// junitOf is the report as JUnit; a result still running is skipped.
func junitOf(rep evalReport) junitSuites {
	out := junitSuites{Name: rep.Run.SuiteName}
	var total int64
	for _, m := range rep.Models {
		js := junitSuite{Name: rep.Run.SuiteName + "." + m.Model, Timestamp: rep.Run.StartedAt.UTC().Format(time.RFC3339)}
		var ms int64
		for _, r := range rep.Results {
			if r.Model != m.Model {
				continue
			}
			ms += r.LatencyMS
			c := junitCase{Name: fmt.Sprintf("%s #%d", r.CaseID, r.Repeat), Classname: js.Name, Time: seconds(r.LatencyMS)}
			if r.TurnID != "" {
				c.SystemOut = "turn " + r.TurnID + " (agentdeck turns show " + r.TurnID + ")"
			}
			switch r.State {
			case store.EvalPassed:
			case store.EvalFailedCase:
				c.Failure = &junitProblem{Message: r.Reason(), Text: failedOutcomes(r)}
				js.Failures++
			case store.EvalError:
				c.Error = &junitProblem{Message: r.Reason(), Text: r.Error}
				js.Errors++
			default:
				c.Skipped = &junitProblem{Message: cmp.Or(r.Error, r.State)}
				js.Skipped++
			}
			js.Cases = append(js.Cases, c)
		}
		js.Tests, js.Time = len(js.Cases), seconds(ms)
		total += ms
		out.add(js.junitTally)
		out.Suites = append(out.Suites, js)
	}
	out.Time = seconds(total)
	return out
}

// failedOutcomes lists every failing assertion, a line each.
func failedOutcomes(r eval.CellResult) string {
	var lines []string
	for _, o := range r.Outcomes {
		if !o.Passed {
			lines = append(lines, o.Kind+": "+o.Reason)
		}
	}
	if r.Error != "" {
		lines = append(lines, r.Error)
	}
	return strings.Join(lines, "\n")
}

func seconds(ms int64) string { return fmt.Sprintf("%.3f", float64(ms)/1000) }

// reportJUnit writes the report as JUnit XML to path, if one is given.
// It is written after the summary, so a path that cannot be written loses
// nothing else: eval show RUN_ID --junit FILE writes it again.
func reportJUnit(path string, rep evalReport, env Env) int {
	if path == "" {
		return ExitOK
	}
	if err := writeJUnit(path, rep); err != nil {
		return fail(env, apperr.Wrap(err, apperr.Unavailable, "The JUnit file %s could not be written (%v); write it again with: agentdeck eval show %s --junit FILE", path, err, rep.Run.ID))
	}
	return ExitOK
}

func writeJUnit(path string, rep evalReport) error {
	b, err := xml.MarshalIndent(junitOf(rep), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append([]byte(xml.Header), append(b, '\n')...), 0o644)
}
