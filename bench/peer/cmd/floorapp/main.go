// Command floorapp is the floor for the desktop figures of `make bench`:
// the smallest Wails window that does what Agentdeck's window must do
// before it counts as started (load a page, run its script, call Go once),
// with the same window options. Its start time and memory are what any
// Wails v2 + WebKitGTK app pays on the machine; Agentdeck's are compared
// with them in the same run.
//
// Like Agentdeck, it writes a ready file named by AGENTDECK_READY_FILE
// when the page has called Go.
package main

import (
	"embed"
	"io/fs"
	"log"
	"os"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

//go:embed dist
var assets embed.FS

// App is bound to the page.
type App struct{ readyFile string }

// Ready is called by the page once its script has run.
func (a *App) Ready(width, height int) error {
	if a.readyFile == "" {
		return nil
	}
	tmp := a.readyFile + ".tmp"
	if err := os.WriteFile(tmp, []byte(`{"ready":true}`), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, a.readyFile)
}

func main() {
	dist, err := fs.Sub(assets, "dist")
	if err != nil {
		log.Fatal(err)
	}
	app := &App{readyFile: os.Getenv("AGENTDECK_READY_FILE")}
	err = wails.Run(&options.App{
		Title:            "floorapp",
		Width:            1280,
		Height:           800,
		AssetServer:      &assetserver.Options{Assets: dist},
		BackgroundColour: &options.RGBA{R: 246, G: 247, B: 249, A: 255},
		Bind:             []any{app},
		Linux:            &linux.Options{ProgramName: "floorapp", WebviewGpuPolicy: linux.WebviewGpuPolicyNever},
	})
	if err != nil {
		log.Fatal(err)
	}
}
