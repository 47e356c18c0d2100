module planwright.dev/controlplane/registry

go 1.25.0

tool github.com/google/go-containerregistry/cmd/registry

require github.com/google/go-containerregistry v0.22.1 // indirect
