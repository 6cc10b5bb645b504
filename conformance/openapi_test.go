// Discovery and OpenAPI as client-go and kubectl read them: aggregated discovery v2, /openapi/v2 in protobuf, parsed by kube-openapi's
// proto models (kubectl's client-side validation), and the v3 documents client-go's typed
// apply and kubectl explain use.
package conformance

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/openapi3"
	"k8s.io/kube-openapi/pkg/util/proto"

	"allot.dev/conformance/harness"
)

func TestOpenAPIDocuments(t *testing.T) {
	allot := harness.StartAllot(t, "--store", "memory", "--no-scheduler", "--no-controllers")
	dc, err := discovery.NewDiscoveryClientForConfig(allot.AdminConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := dc.OpenAPISchema() // protobuf, as client-go always asks
	if err != nil {
		t.Fatalf("/openapi/v2: %v", err)
	}
	if doc.GetSwagger() != "2.0" || len(doc.GetDefinitions().GetAdditionalProperties()) == 0 {
		t.Fatalf("/openapi/v2: swagger %q, %d definitions", doc.GetSwagger(), len(doc.GetDefinitions().GetAdditionalProperties()))
	}
	models, err := proto.NewOpenAPIData(doc)
	if err != nil {
		t.Fatalf("kubectl's parser refuses /openapi/v2: %v", err)
	}
	for _, gvk := range []schema.GroupVersionKind{
		{Version: "v1", Kind: "Pod"},
		{Group: "resource.k8s.io", Version: "v1", Kind: "ResourceClaim"},
		{Group: "resource.k8s.io", Version: "v1beta2", Kind: "DeviceClass"},
		{Group: "apps", Version: "v1", Kind: "StatefulSet"},
	} {
		found := false
		for _, name := range models.ListModels() {
			if m := models.LookupModel(name); m != nil {
				for _, e := range gvkExtensions(m) {
					if e == gvk {
						found = true
					}
				}
			}
		}
		if !found {
			t.Errorf("/openapi/v2 has no definition for %v", gvk)
		}
	}

	// v3: the index and one group-version's schemas, through client-go's own client.
	root := openapi3.NewRoot(dc.OpenAPIV3())
	spec, err := root.GVSpec(schema.GroupVersion{Group: "resource.k8s.io", Version: "v1"})
	if err != nil {
		t.Fatalf("OpenAPI v3 for resource.k8s.io/v1: %v", err)
	}
	if spec.Components == nil || len(spec.Components.Schemas) == 0 {
		t.Fatal("OpenAPI v3 for resource.k8s.io/v1 has no schemas")
	}
}

// The group-version-kinds a model names in x-kubernetes-group-version-kind.
func gvkExtensions(m proto.Schema) []schema.GroupVersionKind {
	var out []schema.GroupVersionKind
	list, ok := m.GetExtensions()["x-kubernetes-group-version-kind"].([]interface{})
	if !ok {
		return nil
	}
	for _, item := range list {
		entry, ok := item.(map[interface{}]interface{})
		if !ok {
			continue
		}
		str := func(k string) string { s, _ := entry[k].(string); return s }
		out = append(out, schema.GroupVersionKind{Group: str("group"), Version: str("version"), Kind: str("kind")})
	}
	return out
}

// Aggregated discovery (apidiscovery.k8s.io/v2), which client-go 1.37 asks for first: decoded
// into upstream's own types, every group with its versions, resources, verbs and subresources.
func TestAggregatedDiscoveryV2(t *testing.T) {
	allot := harness.StartAllot(t, "--store", "memory", "--no-scheduler", "--no-controllers")
	cs := clientset(t, allot.AdminConfig(t))
	const accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
	found := map[string]apidiscoveryv2.APIResourceDiscovery{}
	for _, path := range []string{"/api", "/apis"} {
		res := cs.Discovery().RESTClient().Get().AbsPath(path).SetHeader("Accept", accept).Do(context.Background())
		var ct string
		res.ContentType(&ct)
		raw, err := res.Raw()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !strings.Contains(ct, "as=APIGroupDiscoveryList") {
			t.Fatalf("%s: Content-Type %q: not aggregated discovery", path, ct)
		}
		var list apidiscoveryv2.APIGroupDiscoveryList
		if err := json.Unmarshal(raw, &list); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if list.Kind != "APIGroupDiscoveryList" || list.APIVersion != "apidiscovery.k8s.io/v2" {
			t.Fatalf("%s: kind %q apiVersion %q", path, list.Kind, list.APIVersion)
		}
		for _, g := range list.Items {
			for _, v := range g.Versions {
				for _, r := range v.Resources {
					found[g.Name+"/"+v.Version+"/"+r.Resource] = r
				}
			}
		}
	}
	pods, ok := found["/v1/pods"]
	if !ok || pods.ResponseKind == nil || pods.ResponseKind.Kind != "Pod" || pods.Scope != apidiscoveryv2.ScopeNamespace {
		t.Fatalf("pods: %+v", pods)
	}
	subs := map[string]bool{}
	for _, s := range pods.Subresources {
		subs[s.Subresource] = true
	}
	if !subs["status"] || !subs["binding"] || !subs["eviction"] {
		t.Errorf("pods' subresources: %+v", pods.Subresources)
	}
	for _, key := range []string{"resource.k8s.io/v1/resourceclaims", "resource.k8s.io/v1beta2/deviceclasses",
		"resource.k8s.io/v1beta1/resourceslices", "events.k8s.io/v1/events", "apps/v1/statefulsets",
		"storage.k8s.io/v1/csinodes", "scheduling.koordinator.sh/v1alpha1/reservations"} {
		r, ok := found[key]
		if !ok || len(r.Verbs) == 0 {
			t.Errorf("%s: missing from aggregated discovery, or without verbs (%+v)", key, r)
		}
	}
}
