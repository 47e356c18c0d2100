// Command yaml-oracle serialises objects the way KUDO 0.19 did for the dependencies hash:
// gopkg.in/yaml.v2 (v2.3.0, KUDO's version) marshalling an unstructured object — a struct
// whose only field `Object` holds the JSON-decoded map, hence the top-level key `object`.
// Planwright's TypeScript serializer (src/kudo/tasks/dependencies-hash/) is compared against
// it by test/gotemplate/yaml-differential.test.ts.
//
// stdin: a JSON array of objects. stdout: a JSON array of {yaml, md5} (md5 in lower-case hex),
// or {error} for an object go-yaml refuses.
package main

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"

	"gopkg.in/yaml.v2"
)

// unstructured mirrors k8s.io/apimachinery's Unstructured as go-yaml v2 sees it.
type unstructured struct {
	Object map[string]interface{}
}

type result struct {
	YAML  string `json:"yaml,omitempty"`
	MD5   string `json:"md5,omitempty"`
	Error string `json:"error,omitempty"`
}

// numbers turns json.Number into int64 when it is one, else float64, as apimachinery's JSON
// decoding for unstructured objects does.
func numbers(v interface{}) interface{} {
	switch t := v.(type) {
	case map[string]interface{}:
		for k, x := range t {
			t[k] = numbers(x)
		}
		return t
	case []interface{}:
		for i, x := range t {
			t[i] = numbers(x)
		}
		return t
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, err := t.Float64()
		if err != nil {
			panic(err)
		}
		return f
	}
	return v
}

func marshal(raw json.RawMessage) (res result) {
	defer func() {
		if r := recover(); r != nil {
			res = result{Error: fmt.Sprint(r)}
		}
	}()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var obj map[string]interface{}
	if err := dec.Decode(&obj); err != nil {
		return result{Error: err.Error()}
	}
	out, err := yaml.Marshal(&unstructured{Object: numbers(obj).(map[string]interface{})})
	if err != nil {
		return result{Error: err.Error()}
	}
	sum := md5.Sum(out)
	return result{YAML: string(out), MD5: hex.EncodeToString(sum[:])}
}

func main() {
	var inputs []json.RawMessage
	if err := json.NewDecoder(os.Stdin).Decode(&inputs); err != nil {
		fmt.Fprintln(os.Stderr, "yaml-oracle: reading the input:", err)
		os.Exit(2)
	}
	results := make([]result, len(inputs))
	for i, raw := range inputs {
		results[i] = marshal(raw)
	}
	if err := json.NewEncoder(os.Stdout).Encode(results); err != nil {
		fmt.Fprintln(os.Stderr, "yaml-oracle:", err)
		os.Exit(2)
	}
}
