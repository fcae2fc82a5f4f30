import { mount } from 'svelte';
import App from './App.svelte';
import { createBackend, type Backend } from './lib/api';
import './app.css';

// `npm run dev` with ?demo (or ?demo=fresh, ?demo=long) runs on the
// in-memory fake backend; the fake is not part of the production bundle.
async function pickBackend(): Promise<Backend> {
  const demo = new URLSearchParams(location.search).get('demo');
  if (import.meta.env.DEV && demo !== null) {
    const { demoBackend } = await import('./lib/fake');
    return demoBackend({ fresh: demo === 'fresh', long: demo === 'long' ? 5000 : 0 });
  }
  return createBackend();
}

const app = pickBackend().then((backend) => mount(App, { target: document.getElementById('app')!, props: { backend } }));

export default app;
