import { mount } from 'svelte';
import App from './App.svelte';
import { createBackend } from './lib/api';
import './app.css';

const app = mount(App, {
  target: document.getElementById('app')!,
  props: { backend: createBackend() },
});

export default app;
