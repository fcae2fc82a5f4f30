package app

import (
	"context"
	"io/fs"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

// DesktopConfig is what the window needs beyond the Service.
type DesktopConfig struct {
	Assets fs.FS // the built frontend (frontend/dist)
}

// RunDesktop opens the desktop window and blocks until it is closed.
func RunDesktop(ctx context.Context, svc *Service, cfg DesktopConfig) error {
	return wails.Run(&options.App{
		Title:     "Agentdeck",
		Width:     1280,
		Height:    800,
		MinWidth:  720,
		MinHeight: 480,
		AssetServer: &assetserver.Options{
			Assets: cfg.Assets,
		},
		BackgroundColour: &options.RGBA{R: 246, G: 247, B: 249, A: 255},
		OnStartup: func(wctx context.Context) {
			svc.log.Info("window started")
		},
		OnShutdown: func(wctx context.Context) {
			svc.log.Info("window closed")
		},
		Bind:           []any{svc},
		ErrorFormatter: ErrorReply,
		Linux: &linux.Options{
			ProgramName:         "agentdeck",
			WebviewGpuPolicy:    linux.WebviewGpuPolicyNever,
			WindowIsTranslucent: false,
		},
	})
}
