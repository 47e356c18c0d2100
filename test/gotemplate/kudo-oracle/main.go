// Command kudo-oracle renders Go text/template cases exactly as KUDO 0.19's renderer does:
// sprig v2.22.0 and its dependencies at the versions KUDO's go.sum pins, toYaml as
// gopkg.in/yaml.v2 v2.3.0's Marshal, missingkey=error (kudo/pkg/engine/renderer).
package main

import (
	"text/template"

	"github.com/Masterminds/sprig"
	"gopkg.in/yaml.v2"
	core "planwright.dev/gotemplate-oracle-core"
)

// toYaml is KUDO's renderer.ToYaml: the marshal error is returned to the template.
func toYaml(v interface{}) (string, error) {
	out, err := yaml.Marshal(v)
	return string(out), err
}

func main() {
	core.Main(func() template.FuncMap { return core.KudoTrim(sprig.TxtFuncMap(), toYaml) })
}
