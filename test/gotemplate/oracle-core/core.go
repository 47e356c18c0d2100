// Package core is what the template oracles share: the request protocol, the tagged data
// decoding and KUDO's Engine.Template (a "gotpl" root, missingkey=error). Each oracle module
// pins its own sprig and passes its function map to Main, so the pins stay per module.
//
// Modes of an oracle built on it:
//
//	oracle              read a JSON array of cases on stdin, write a JSON array of results
//	oracle bench FILE   FILE holds {template, data, iterations}; prints µs per parse and per render
//	oracle funcs        the function map's names
package core

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"text/template"
	"time"

)

type testCase struct {
	Name     string          `json:"name"`
	Template string          `json:"template"`
	Data     json.RawMessage `json:"data"`
}

type result struct {
	Output string  `json:"output"`
	Error  *string `json:"error,omitempty"`
}

// FuncMap builds an oracle's function map (called once per process).
type FuncMap func() template.FuncMap

// KudoTrim applies kudo/pkg/engine/renderer.New to sprig's map: toYaml added, the functions
// that read the controller's environment or paths removed.
func KudoTrim(f template.FuncMap, toYaml interface{}) template.FuncMap {
	f["toYaml"] = toYaml
	for _, name := range []string{"env", "expandenv", "base", "dir", "clean", "ext", "isAbs"} {
		delete(f, name)
	}
	return f
}

// newTemplate mirrors kudo's Engine.Template: a "gotpl" root with missingkey=error and the
// named template created from it.
func newTemplate(name string, funcs template.FuncMap) *template.Template {
	t := template.New("gotpl")
	t.Option("missingkey=error")
	return t.New(name).Funcs(funcs)
}

// testFuncs are Go function values the corpus can put into data (for `call`).
var testFuncs = map[string]interface{}{
	"add":   func(a, b int) int { return a + b },
	"greet": func(s string) string { return "hello " + s },
	"fail":  func() (string, error) { return "", errors.New("boom") },
	"pair":  func(a string, b ...int) string { return fmt.Sprint(a, b) },
}

// decode turns the corpus's tagged JSON into Go values: plain JSON decodes as encoding/json
// would (numbers are float64), and single-key objects {"$int": 3}, {"$int64": 3},
// {"$int32": 3}, {"$uint8": 3}, {"$float": 3}, {"$strmap": {..}}, {"$strlist": [..]},
// {"$intlist": [..]}, {"$func": "add"}, {"$nillist": null}, {"$nilmap": null} produce the Go types KUDO data never has but templates can observe.
func decode(v interface{}) interface{} {
	switch t := v.(type) {
	case map[string]interface{}:
		if len(t) == 1 {
			for k, inner := range t {
				switch k {
				case "$int":
					return int(inner.(float64))
				case "$int64":
					return int64(inner.(float64))
				case "$int32":
					return int32(inner.(float64))
				case "$uint8":
					return uint8(inner.(float64))
				case "$float":
					return inner.(float64)
				case "$strmap":
					m := map[string]string{}
					for mk, mv := range inner.(map[string]interface{}) {
						m[mk] = mv.(string)
					}
					return m
				case "$strlist":
					var l []string
					for _, e := range inner.([]interface{}) {
						l = append(l, e.(string))
					}
					return l
				case "$intlist":
					l := []int{}
					for _, e := range inner.([]interface{}) {
						l = append(l, int(e.(float64)))
					}
					return l
				case "$func":
					return testFuncs[inner.(string)]
				case "$nillist":
					// What KUDO's yaml.Unmarshal leaves in an empty array parameter.
					var l []interface{}
					return l
				case "$nilmap":
					var m map[string]interface{}
					return m
				}
			}
		}
		out := make(map[string]interface{}, len(t))
		for k, e := range t {
			out[k] = decode(e)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(t))
		for i, e := range t {
			out[i] = decode(e)
		}
		return out
	default:
		return v
	}
}

func decodeData(raw json.RawMessage) (interface{}, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	var v interface{}
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	return decode(v), nil
}

func render(funcs template.FuncMap, c testCase) result {
	name := c.Name
	if name == "" {
		name = "tpl"
	}
	fail := func(err error) result {
		msg := err.Error()
		return result{Error: &msg}
	}
	data, err := decodeData(c.Data)
	if err != nil {
		return fail(fmt.Errorf("oracle: bad data: %w", err))
	}
	t := newTemplate(name, funcs)
	if _, err := t.Parse(c.Template); err != nil {
		return fail(err)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, name, data); err != nil {
		return fail(err)
	}
	return result{Output: buf.String()}
}

func runCases(funcMap FuncMap) error {
	var cases []testCase
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		return fmt.Errorf("reading cases: %w", err)
	}
	funcs := funcMap()
	results := make([]result, len(cases))
	for i, c := range cases {
		results[i] = renderSafely(funcs, c)
	}
	return json.NewEncoder(os.Stdout).Encode(results)
}

// renderSafely turns a panic inside a template function into an error result, the way
// text/template itself reports panics of called functions.
func renderSafely(funcs template.FuncMap, c testCase) (r result) {
	defer func() {
		if p := recover(); p != nil {
			msg := fmt.Sprintf("oracle: panic: %v", p)
			r = result{Error: &msg}
		}
	}()
	return render(funcs, c)
}

type benchInput struct {
	Template   string          `json:"template"`
	Data       json.RawMessage `json:"data"`
	Iterations int             `json:"iterations"`
}

func runBench(funcMap FuncMap, path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var in benchInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return err
	}
	data, err := decodeData(in.Data)
	if err != nil {
		return err
	}
	if in.Iterations <= 0 {
		in.Iterations = 2000
	}
	funcs := funcMap()
	start := time.Now()
	var t *template.Template
	for i := 0; i < in.Iterations; i++ {
		t = newTemplate("bench", funcs)
		if _, err := t.Parse(in.Template); err != nil {
			return err
		}
	}
	parse := time.Since(start)
	var buf bytes.Buffer
	// Warm up once so the first render's allocations don't skew the mean.
	if err := t.ExecuteTemplate(&buf, "bench", data); err != nil {
		return err
	}
	start = time.Now()
	for i := 0; i < in.Iterations; i++ {
		buf.Reset()
		if err := t.ExecuteTemplate(&buf, "bench", data); err != nil {
			return err
		}
	}
	exec := time.Since(start)
	perUs := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(in.Iterations) / 1000 }
	return json.NewEncoder(os.Stdout).Encode(map[string]interface{}{
		"parseMicros":  perUs(parse),
		"renderMicros": perUs(exec),
		"outputBytes":  buf.Len(),
	})
}

// funcNames lists the function map (for the corpus coverage check).
func funcNames(funcMap FuncMap) []string {
	var names []string
	for k := range funcMap() {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Main runs the oracle with the function map `funcMap` builds.
func Main(funcMap FuncMap) {
	var err error
	switch {
	case len(os.Args) == 3 && os.Args[1] == "bench":
		err = runBench(funcMap, os.Args[2])
	case len(os.Args) == 2 && os.Args[1] == "funcs":
		err = json.NewEncoder(os.Stdout).Encode(funcNames(funcMap))
	default:
		err = runCases(funcMap)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		os.Exit(1)
	}
}
