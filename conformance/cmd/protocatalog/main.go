// Command protocatalog writes the catalog of the protobuf messages that Allot handles as JSON
// text: the core/v1 ones it keeps as JSON (its RawJson fields: probes, security contexts,
// volume sources, ...), and those of resource.k8s.io/v1beta1, a served version whose shape is
// not the stored one's, so that its protobuf codec can carry them
// (src/api/codec/opaque_messages.h). The catalog is read off the Go
// types of k8s.io/api at the version conformance/go.mod pins: their protobuf and json struct
// tags give each field's number, JSON name and how encoding/json writes it.
//
//	go run ./cmd/protocatalog > ../src/api/codec/opaque_messages/k8s_api.tsv
//
// A sixth column, where there is one, holds the field's default: the JSON value kube-apiserver
// gives it when a request leaves it out (or at its zero value), read off Kubernetes' own
// defaulting (defaults.go).
//
// TestOpaqueMessageCatalogIsCurrent fails when the file in the repository differs from what
// this prints.
package main

import (
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The messages Allot keeps as JSON text; the catalog holds them and every message they hold.
var roots = []any{
	corev1.EnvVarSource{}, corev1.EnvFromSource{}, corev1.ContainerRestartRule{},
	corev1.Probe{}, corev1.Lifecycle{}, corev1.SecurityContext{}, corev1.EphemeralContainer{},
	corev1.PodSecurityContext{}, corev1.PodDNSConfig{}, corev1.VolumeMountStatus{},
	corev1.ContainerUser{}, corev1.ResourceStatus{}, corev1.VolumeSource{},
	corev1.PersistentVolumeSource{}, corev1.VolumeHealthStatus{}, corev1.NodeConfigSource{},
	corev1.NodeSwapStatus{}, corev1.NodeDaemonEndpoints{}, corev1.AttachedVolume{},
	corev1.NodeConfigStatus{}, corev1.NodeRuntimeHandler{}, corev1.NodeFeatures{},
	// resource.k8s.io/v1beta1, whose shape differs from the stored v1: Allot serves it in
	// protobuf by converting to its JSON and writing that as these messages.
	resourcev1beta1.DeviceClass{}, resourcev1beta1.ResourceClaim{},
	resourcev1beta1.ResourceClaimTemplate{}, resourcev1beta1.ResourceSlice{},
}

// Types with a protobuf form of their own, not a message of fields.
var special = map[reflect.Type]string{
	reflect.TypeOf(resource.Quantity{}):    "quantity",
	reflect.TypeOf(intstr.IntOrString{}):   "intorstring",
	reflect.TypeOf(metav1.Time{}):          "time",
	reflect.TypeOf(metav1.MicroTime{}):     "microtime",
	reflect.TypeOf(metav1.Duration{}):      "duration",
	reflect.TypeOf(runtime.RawExtension{}): "rawextension",
	// Its protobuf form is RawExtension's: {bytes = 1} holding the JSON value.
	reflect.TypeOf(metav1.FieldsV1{}): "rawextension",
}

// The protobuf package of a Go package: k8s.io/api/core/v1 -> k8s.io.api.core.v1.
func messageName(t reflect.Type) string {
	return strings.ReplaceAll(t.PkgPath(), "/", ".") + "." + t.Name()
}

type catalog struct {
	lines map[string][]string // by message name
	queue []reflect.Type
}

func (c *catalog) want(t reflect.Type) string {
	if s, ok := special[t]; ok {
		return s
	}
	name := messageName(t)
	if _, ok := c.lines[name]; !ok {
		c.lines[name] = nil
		c.queue = append(c.queue, t)
	}
	return name
}

// The catalog's name of a field's type: a scalar, a message, []T, or map[string]T.
func (c *catalog) typeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Pointer:
		return c.typeName(t.Elem())
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "bytes"
		}
		return "[]" + c.typeName(t.Elem())
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			panic(fmt.Sprintf("map key %v", t.Key()))
		}
		return "map[string]" + c.typeName(t.Elem())
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Int32:
		return "int32"
	case reflect.Int64, reflect.Int:
		return "int64"
	case reflect.Float64:
		return "double"
	case reflect.Struct:
		return c.want(t)
	}
	panic(fmt.Sprintf("type %v", t))
}

// How encoding/json writes the field: inline (an embedded struct without a JSON name: its fields
// at this place), pointer (when set), omitempty (when not its zero value), always; main adds
// omitzero (left out when its zero value, a struct too).
func presence(f reflect.StructField, jsonName string, omitempty bool) string {
	// An embedded struct with a JSON name of its own (PersistentVolumeClaimTemplate's
	// ObjectMeta, "metadata") is a field like any other.
	if f.Anonymous && jsonName == "" {
		return "inline"
	}
	t := f.Type
	if t.Kind() == reflect.Pointer {
		return "pointer"
	}
	// encoding/json never leaves out a struct value, omitempty or not.
	if omitempty && t.Kind() != reflect.Struct {
		return "omitempty"
	}
	return "always"
}

func (c *catalog) message(t reflect.Type) {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("protobuf")
		if tag == "" {
			continue // not in the message (TypeMeta, for one)
		}
		parts := strings.Split(tag, ",")
		number := parts[1]
		jsonTag := strings.Split(f.Tag.Get("json"), ",")
		jsonName := jsonTag[0]
		if jsonName == "-" {
			continue
		}
		omitempty, omitzero := false, false
		for _, o := range jsonTag[1:] {
			omitempty = omitempty || o == "omitempty"
			omitzero = omitzero || o == "omitzero"
		}
		p := presence(f, jsonName, omitempty)
		if omitzero && p == "always" {
			p = "omitzero" // left out when its zero value, struct or not
		}
		if p == "inline" {
			jsonName = "-"
		}
		out = append(out, strings.Join([]string{messageName(t), number, jsonName,
			c.typeName(f.Type), p}, "\t"))
	}
	c.lines[messageName(t)] = out
}

func main() {
	c := &catalog{lines: map[string][]string{}}
	theCatalog = c
	for _, r := range roots {
		c.want(reflect.TypeOf(r))
	}
	for len(c.queue) > 0 {
		t := c.queue[0]
		c.queue = c.queue[1:]
		c.message(t)
	}
	defaultOf := defaults()
	used := 0
	for n, lines := range c.lines {
		for i, l := range lines {
			cols := strings.Split(l, "\t")
			if d, ok := defaultOf[fieldKey{n, cols[2]}]; ok {
				lines[i] = l + "\t" + d
				used++
			}
		}
	}
	if used != len(defaultOf) {
		panic("a default for a field the catalog does not hold")
	}
	names := make([]string, 0, len(c.lines))
	for n := range c.lines {
		names = append(names, n)
	}
	sort.Strings(names)
	w := os.Stdout
	fmt.Fprintln(w, "# Generated by conformance/cmd/protocatalog from k8s.io/api's Go types; do not edit.")
	fmt.Fprintln(w, "# message\tnumber\tjson name (- for an embedded struct)\ttype\thow encoding/json writes it\tdefault")
	for _, n := range names {
		for _, l := range c.lines[n] {
			fmt.Fprintln(w, l)
		}
	}
}
