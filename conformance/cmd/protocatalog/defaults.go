package main

// The defaults kube-apiserver gives the fields of the messages Allot keeps as JSON text, read
// off Kubernetes' own defaulting (k8s.io/kubernetes pkg/apis/core/v1: SetDefaults_Probe,
// SetDefaults_HTTPGetAction, the generated +default markers, ...) by running it: each kind that
// holds such messages is built with every message present (every pointer to a struct set, every
// list of structs holding one), defaulted by the scheme, and compared field by field with what
// it was. A field that changed holds its default.
//
// Two checks keep the result honest: a message reached at several places must be defaulted the
// same at each, and the defaulting is run again with every other string of the messages set, so
// that a default that depends on another field (a pull policy read off an image reference) is
// found and written as such, or stops the program when the catalog cannot say it.

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	corev1defaults "k8s.io/kubernetes/pkg/apis/core/v1"
)

// The kinds whose JSON-text parts kube-apiserver defaults.
var defaultedKinds = []runtime.Object{&corev1.Pod{}, &corev1.PersistentVolume{}, &corev1.Node{}}

// A default that is computed from another field of the same message: the catalog writes it as
// "@pullPolicyOf:<that field's JSON name>", Kubernetes' rule for image pull policies (Always for
// an image with the tag "latest" or with neither tag nor digest, else IfNotPresent).
const pullPolicyRule = "@pullPolicyOf:"

type fieldKey struct{ message, json string }

// What one defaulting run changed: the default JSON text by field, and for each message reached
// inside a part kept as JSON the set of its fields that were defaulted there.
type defaultRun struct {
	values  map[fieldKey]string
	reached map[string][]map[string]bool
}

// fill sets every pointer to a struct and gives every list of structs one element, below `v`,
// and sets string fields inside the JSON-text parts with `str` (which may leave some alone).
func fill(v reflect.Value, inRoot bool, path map[reflect.Type]bool, str func(fieldKey) string) {
	t := v.Type()
	if t.Kind() != reflect.Struct || special[t] != "" || path[t] {
		return
	}
	if rootTypes[t] {
		inRoot = true
	}
	path[t] = true
	defer delete(path, t)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		fv := v.Field(i)
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		switch {
		case f.Type.Kind() == reflect.Struct:
			fill(fv, inRoot, path, str)
		case f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct &&
			special[f.Type.Elem()] == "" && !path[f.Type.Elem()]:
			fv.Set(reflect.New(f.Type.Elem()))
			fill(fv.Elem(), inRoot, path, str)
		case f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct &&
			special[f.Type.Elem()] == "" && !path[f.Type.Elem()]:
			fv.Set(reflect.MakeSlice(f.Type, 1, 1))
			fill(fv.Index(0), inRoot, path, str)
		case f.Type.Kind() == reflect.String && inRoot && name != "" && name != "-":
			fv.SetString(str(fieldKey{messageName(t), name}))
		}
	}
}

// compare records, below `before` and `after` (the same object before and after defaulting),
// the fields of messages inside JSON-text parts that defaulting changed.
func compare(before, after reflect.Value, inRoot bool, run *defaultRun) {
	t := before.Type()
	switch t.Kind() {
	case reflect.Pointer:
		if before.IsNil() {
			if !after.IsNil() && inRoot && t.Elem().Kind() == reflect.Struct {
				panic(fmt.Sprintf("defaulting allocates a %v: the catalog cannot say so", t.Elem()))
			}
			return
		}
		compare(before.Elem(), after.Elem(), inRoot, run)
		return
	case reflect.Slice:
		for i := 0; i < before.Len() && i < after.Len(); i++ {
			compare(before.Index(i), after.Index(i), inRoot, run)
		}
		return
	case reflect.Struct:
	default:
		return
	}
	if special[t] != "" {
		return
	}
	if rootTypes[t] {
		inRoot = true
	}
	var defaulted map[string]bool
	if inRoot {
		defaulted = map[string]bool{}
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		b, a := before.Field(i), after.Field(i)
		scalar := f.Type.Kind() != reflect.Struct && f.Type.Kind() != reflect.Slice &&
			f.Type.Kind() != reflect.Map &&
			!(f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct)
		if !scalar {
			compare(b, a, inRoot, run)
			continue
		}
		if !inRoot || reflect.DeepEqual(b.Interface(), a.Interface()) {
			continue
		}
		name := strings.Split(f.Tag.Get("json"), ",")[0]
		text, err := json.Marshal(a.Interface())
		if err != nil {
			panic(err)
		}
		run.values[fieldKey{messageName(t), name}] = string(text)
		defaulted[name] = true
	}
	if inRoot {
		run.reached[messageName(t)] = append(run.reached[messageName(t)], defaulted)
	}
}

var rootTypes = map[reflect.Type]bool{}

func runDefaulting(scheme *runtime.Scheme, str func(fieldKey) string) defaultRun {
	run := defaultRun{values: map[fieldKey]string{}, reached: map[string][]map[string]bool{}}
	for _, k := range defaultedKinds {
		obj := reflect.New(reflect.TypeOf(k).Elem())
		fill(obj.Elem(), false, map[reflect.Type]bool{}, str)
		before := obj.Interface().(runtime.Object).DeepCopyObject()
		scheme.Default(obj.Interface().(runtime.Object))
		compare(reflect.ValueOf(before), obj, false, &run)
	}
	return run
}

// defaults returns the default of each field that has one, as the catalog's last column.
func defaults() map[fieldKey]string {
	for _, r := range roots {
		rootTypes[reflect.TypeOf(r)] = true
	}
	scheme := runtime.NewScheme()
	if err := corev1defaults.RegisterDefaults(scheme); err != nil {
		panic(err)
	}
	base := runDefaulting(scheme, func(fieldKey) string { return "" })
	for message, sets := range base.reached {
		for _, s := range sets[1:] {
			if !reflect.DeepEqual(s, sets[0]) {
				panic(fmt.Sprintf("%s is defaulted differently in different places", message))
			}
		}
	}
	// Every string the first run left alone set to an image reference, all tagged, or one
	// field untagged: a default that moves with them is computed from that field.
	other := func(ref string, only *fieldKey) func(fieldKey) string {
		return func(k fieldKey) string {
			if _, isDefault := base.values[k]; isDefault {
				return ""
			}
			if only != nil && k != *only {
				return "example.com/img:1.0"
			}
			return ref
		}
	}
	tagged := runDefaulting(scheme, other("example.com/img:1.0", nil))
	untagged := runDefaulting(scheme, other("example.com/img", nil))
	out := map[fieldKey]string{}
	for k, v := range base.values {
		if tagged.values[k] == v && untagged.values[k] == v {
			out[k] = v
			continue
		}
		out[k] = pullPolicyRule + pullPolicySource(scheme, k, other)
	}
	return out
}

// pullPolicySource finds the field of k's message whose image reference k's default follows,
// checking Kubernetes' rule on it; it stops the program when there is none.
func pullPolicySource(scheme *runtime.Scheme, k fieldKey,
	other func(string, *fieldKey) func(fieldKey) string) string {
	for _, line := range catalogLinesOf(k.message) {
		cols := strings.Split(line, "\t")
		if cols[3] != "string" || cols[2] == k.json {
			continue
		}
		src := fieldKey{k.message, cols[2]}
		want := map[string]string{
			"example.com/img":                                   `"Always"`,
			"example.com/img:latest":                            `"Always"`,
			"example.com/img:1.0":                               `"IfNotPresent"`,
			"example.com/img@sha256:" + strings.Repeat("a", 64): `"IfNotPresent"`,
		}
		fits := true
		for ref, policy := range want {
			if runDefaulting(scheme, other(ref, &src)).values[k] != policy {
				fits = false
				break
			}
		}
		if fits {
			return cols[2]
		}
	}
	panic(fmt.Sprintf("the default of %s.%s depends on other fields in a way the catalog cannot say",
		k.message, k.json))
}

var theCatalog *catalog

func catalogLinesOf(message string) []string { return theCatalog.lines[message] }
