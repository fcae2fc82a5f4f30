// Command agentdeck is the Agentdeck desktop app and its headless CLI.
//
// main only wires: the command line lives in backend/cli, the window and
// the browser mode in app.
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

// The window's icon on Linux: drawn by scripts/icons.sh from build/appicon.svg.
//
//go:embed build/linux/icons/hicolor/256x256/apps/agentdeck.png
var icon []byte

func main() {
	dist, _ := fs.Sub(assets, "frontend/dist") // the embed pattern guarantees the folder
	signals := make(chan os.Signal, 2)
	info := buildinfo.Read()
	code := cli.Main(context.Background(), os.Args[1:], cli.Env{
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Paths:  paths.OSEnv(),
		Getenv: os.Getenv,
		Info:   info,
		Desktop: func(ctx context.Context, start cli.DesktopStart) error {
			svc, closeEngine := app.Open(ctx, app.OpenConfig{
				Logger:    start.Logger,
				Info:      info,
				DB:        start.DB,
				DBPath:    start.DBPath,
				DBErr:     start.DBErr,
				ReadyFile: os.Getenv("AGENTDECK_READY_FILE"),
			})
			defer closeEngine()
			return app.RunDesktop(ctx, svc, app.DesktopConfig{Assets: dist, Icon: icon})
		},
		Serve: func(ctx context.Context, start cli.ServeStart) error {
			svc, closeEngine := app.Open(ctx, app.OpenConfig{Logger: start.Logger, Info: info, DB: start.DB, DBPath: start.DBPath, OTLP: start.OTLP})
			defer closeEngine()
			srv, err := app.NewServer(svc, app.ServeConfig{Addr: start.Addr, AllowRemote: start.AllowRemote, Assets: dist, Logger: start.Logger, Ready: start.Ready})
			if err != nil {
				return err
			}
			return srv.ListenAndServe(ctx)
		},
		Signals: signalsFor(os.Args[1:], signals),
	})
	os.Exit(code)
}

// signalsFor routes SIGINT and SIGTERM to the command line for headless
// commands; the desktop window handles them itself.
func signalsFor(args []string, ch chan os.Signal) <-chan os.Signal {
	if len(args) == 0 || args[0] == "" || args[0][0] == '-' {
		return nil
	}
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	return ch
}
