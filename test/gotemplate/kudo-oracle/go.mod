module planwright.dev/gotemplate-kudo-oracle

go 1.26

// KUDO 0.19.0's go.sum: sprig v2 has no go.mod, so each of its dependencies is pinned here.
require (
	github.com/Masterminds/goutils v1.1.0 // indirect
	github.com/Masterminds/semver v1.5.0 // indirect
	github.com/Masterminds/sprig v2.22.0+incompatible
	github.com/google/uuid v1.1.1 // indirect
	github.com/huandu/xstrings v1.3.2 // indirect
	github.com/imdario/mergo v0.3.9 // indirect
	github.com/mitchellh/copystructure v1.0.0 // indirect
	github.com/mitchellh/reflectwalk v1.0.0 // indirect
	golang.org/x/crypto v0.0.0-20200622213623-75b288015ac9 // indirect
	gopkg.in/yaml.v2 v2.3.0
	planwright.dev/gotemplate-oracle-core v0.0.0
)

require github.com/stretchr/testify v1.12.1 // indirect

replace planwright.dev/gotemplate-oracle-core => ../oracle-core
