// Command oracle renders Go text/template cases with sprig v3's function map as KUDO trims
// it: the reference for Planwright's extensions (functions KUDO's sprig v2 lacks), which
// follow sprig v3.
package main

import (
	"text/template"

	"github.com/Masterminds/sprig/v3"
	yamlv2 "go.yaml.in/yaml/v2"
	core "planwright.dev/gotemplate-oracle-core"
)

func toYaml(v interface{}) (string, error) {
	out, err := yamlv2.Marshal(v)
	return string(out), err
}

func main() {
	core.Main(func() template.FuncMap { return core.KudoTrim(sprig.TxtFuncMap(), toYaml) })
}
