// Call Go once the Wails bindings exist, as Agentdeck's UI does when its
// shell has rendered.
(function ready() {
  const app = window.go && window.go.main && window.go.main.App;
  if (!app) {
    setTimeout(ready, 5);
    return;
  }
  requestAnimationFrame(() => app.Ready(window.innerWidth, window.innerHeight));
})();
