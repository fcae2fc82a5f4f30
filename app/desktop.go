package app

import (
	"context"
	"io/fs"
	"log/slog"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/logger"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// BusEvent is the one Wails event the window gets: every Envelope of the
// bus, as it is.
const BusEvent = "agentdeck:bus"

// DesktopConfig is what the window needs beyond the Service.
type DesktopConfig struct {
	Assets fs.FS // the built frontend (frontend/dist)
	// Icon is the window's icon on Linux, a PNG (build/linux/icons/
	// hicolor/256x256/apps/agentdeck.png); macOS and Windows take theirs
	// from the bundle and the .exe's resources.
	Icon []byte
}

// RunDesktop opens the desktop window and blocks until it is closed. This
// file is the only one in the repo that imports the Wails runtime.
func RunDesktop(ctx context.Context, svc *Service, cfg DesktopConfig) error {
	var sub *Subscription
	pumped := make(chan struct{})
	// Before the window starts: no call reads it yet.
	svc.clipboard = WindowClipboard()
	return wails.Run(&options.App{
		Title:     "Agentdeck",
		Width:     1280,
		Height:    800,
		MinWidth:  720,
		MinHeight: 480,
		AssetServer: &assetserver.Options{
			Assets: cfg.Assets,
			// The artifact frame's loader gets its own policy (csp.go).
			Middleware: withArtifactCSP,
		},
		BackgroundColour: &options.RGBA{R: 246, G: 247, B: 249, A: 255},
		OnStartup: func(wctx context.Context) {
			// EventsEmit has no back-pressure and costs one JavaScript
			// evaluation per call: the bus's events come coalesced, and
			// its queue is bounded (see Bus).
			sub = svc.bus.Subscribe(uiQueue)
			go func() {
				defer close(pumped)
				sub.Pump(func(env Envelope) { runtime.EventsEmit(wctx, BusEvent, env) })
			}()
			// After the subscriptions: startup starts the watcher of dead
			// processes' turns, whose first look is at once.
			svc.startup(wctx)
			svc.log.Info("window started")
		},
		OnShutdown: func(wctx context.Context) {
			svc.shutdown()
			if sub != nil {
				sub.Close()
				<-pumped
			}
			svc.log.Info("window closed")
		},
		// Wails' own log goes where ours does (agentdeck.log), never to the terminal.
		Logger:             wailsLog{svc.log},
		LogLevel:           logger.INFO,
		LogLevelProduction: logger.WARNING,
		DragAndDrop:        &options.DragAndDrop{EnableFileDrop: true},
		Bind:               []any{svc.api}, // window.go.app.API: exactly the API's methods
		ErrorFormatter:     ErrorReply,
		Linux: &linux.Options{
			ProgramName:      "agentdeck",
			Icon:             cfg.Icon,
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
	})
}

// wailsLog hands Wails' log lines to the app's logger.
type wailsLog struct{ log *slog.Logger }

func (w wailsLog) Print(msg string)   { w.log.Info(msg, "from", "wails") }
func (w wailsLog) Trace(msg string)   { w.log.Debug(msg, "from", "wails") }
func (w wailsLog) Debug(msg string)   { w.log.Debug(msg, "from", "wails") }
func (w wailsLog) Info(msg string)    { w.log.Info(msg, "from", "wails") }
func (w wailsLog) Warning(msg string) { w.log.Warn(msg, "from", "wails") }
func (w wailsLog) Error(msg string)   { w.log.Error(msg, "from", "wails") }

// Fatal logs; Wails exits the process itself after calling it.
func (w wailsLog) Fatal(msg string) { w.log.Error(msg, "from", "wails", "fatal", true) }
