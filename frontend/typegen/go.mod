module github.com/agentdeck/agentdeck/frontend/typegen

go 1.26.0

require github.com/gzuidhof/tygo v0.2.21

require (
	github.com/fatih/structtag v1.2.0 // indirect
	golang.org/x/mod v0.5.1 // indirect
	golang.org/x/sys v0.1.0 // indirect
	golang.org/x/tools v0.1.9 // indirect
	golang.org/x/xerrors v0.0.0-20200804184101-5ec99f83aff1 // indirect
)
