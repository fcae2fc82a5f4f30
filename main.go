// Command agentdeck is the Agentdeck desktop app and its headless CLI.
//
// main only wires: the command line lives in backend/cli, the window in app.
package main

import (
	"context"
	"embed"
	"io/fs"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentdeck/agentdeck/app"
	"github.com/agentdeck/agentdeck/backend/buildinfo"
	"github.com/agentdeck/agentdeck/backend/cli"
	"github.com/agentdeck/agentdeck/backend/paths"
)

//go:embed all:frontend/dist
var assets embed.FS

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	dist, err := fs.Sub(assets, "frontend/dist")
	if err != nil {
		panic(err) // the embed pattern above guarantees the folder exists
	}
	code := cli.Main(ctx, os.Args[1:], cli.Env{
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Paths:  paths.OSEnv(),
		Getenv: os.Getenv,
		Info:   buildinfo.Read(),
		Desktop: func(ctx context.Context, start cli.DesktopStart) error {
			svc, closeEngine := app.Open(ctx, app.OpenConfig{
				Logger:    start.Logger,
				Info:      buildinfo.Read(),
				DB:        start.DB,
				DBPath:    start.DBPath,
				DBErr:     start.DBErr,
				ReadyFile: os.Getenv("AGENTDECK_READY_FILE"),
			})
			defer closeEngine()
			return app.RunDesktop(ctx, svc, app.DesktopConfig{Assets: dist})
		},
	})
	stop()
	os.Exit(code)
}
