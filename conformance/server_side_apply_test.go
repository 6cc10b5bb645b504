// Server-side apply through client-go's typed Apply, as controllers and kubectl use it:
// managedFields that client-go's own extractors (structured-merge-diff with the 1.37 schemas)
// read back, field managers, conflicts with their fields, and forcing.
package conformance

import (
	"context"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	"allot.dev/conformance/harness"
)

func managers(entries []metav1.ManagedFieldsEntry) map[string]metav1.ManagedFieldsOperationType {
	out := map[string]metav1.ManagedFieldsOperationType{}
	for _, e := range entries {
		out[e.Manager] = e.Operation
	}
	return out
}

func TestServerSideApply(t *testing.T) {
	allot := harness.StartAllot(t, "--no-scheduler", "--no-controllers")
	for encoding, cfg := range encodings(allot.AdminConfig(t)) {
		t.Run(encoding, func(t *testing.T) {
			ctx := context.Background()
			cs := clientset(t, cfg)
			ns := "apply-" + encoding
			createNamespace(t, cs, ns)
			cms := cs.CoreV1().ConfigMaps(ns)

			// A create owns what it set.
			_, err := cms.Create(ctx, &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: "cm", Labels: map[string]string{"team": "a"}},
				Data:       map[string]string{"a": "1"},
			}, metav1.CreateOptions{FieldManager: "creator"})
			if err != nil {
				t.Fatal(err)
			}

			// An apply of other fields shares the object.
			applied, err := cms.Apply(ctx,
				corev1ac.ConfigMap("cm", ns).WithData(map[string]string{"b": "2"}),
				metav1.ApplyOptions{FieldManager: "applier"})
			if err != nil {
				t.Fatal(err)
			}
			if got := managers(applied.ManagedFields); got["creator"] != metav1.ManagedFieldsOperationUpdate ||
				got["applier"] != metav1.ManagedFieldsOperationApply {
				t.Fatalf("managedFields: %+v", applied.ManagedFields)
			}
			// client-go's extractor reads back exactly what the applier applied.
			extracted, err := corev1ac.ExtractConfigMap(applied, "applier")
			if err != nil {
				t.Fatalf("ExtractConfigMap: %v", err)
			}
			if !reflect.DeepEqual(extracted.Data, map[string]string{"b": "2"}) {
				t.Errorf("applier's fields: %+v", extracted.Data)
			}
			byCreator, err := corev1ac.ExtractConfigMap(applied, "creator")
			if err != nil {
				t.Fatalf("ExtractConfigMap(creator) [an Update entry]: %v", err)
			}
			_ = byCreator

			// Changing the creator's field is a conflict naming it.
			_, err = cms.Apply(ctx,
				corev1ac.ConfigMap("cm", ns).WithData(map[string]string{"a": "changed", "b": "2"}),
				metav1.ApplyOptions{FieldManager: "applier"})
			if !apierrors.IsConflict(err) {
				t.Fatalf("want a conflict, got %v", err)
			}
			status, ok := err.(apierrors.APIStatus)
			if !ok {
				t.Fatalf("not an API status: %v", err)
			}
			causes := status.Status().Details.Causes
			if len(causes) != 1 || causes[0].Type != metav1.CauseTypeFieldManagerConflict ||
				causes[0].Field != ".data.a" {
				t.Fatalf("causes: %+v (message %q)", causes, status.Status().Message)
			}

			// Forced, the field changes hands.
			forced, err := cms.Apply(ctx,
				corev1ac.ConfigMap("cm", ns).WithData(map[string]string{"a": "changed", "b": "2"}),
				metav1.ApplyOptions{FieldManager: "applier", Force: true})
			if err != nil {
				t.Fatal(err)
			}
			if forced.Data["a"] != "changed" {
				t.Fatalf("data after force: %v", forced.Data)
			}
			extracted, err = corev1ac.ExtractConfigMap(forced, "applier")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(extracted.Data, map[string]string{"a": "changed", "b": "2"}) {
				t.Errorf("applier's fields after force: %+v", extracted.Data)
			}

			// Leaving a field out of the next apply removes it; the creator's label stays.
			pruned, err := cms.Apply(ctx,
				corev1ac.ConfigMap("cm", ns).WithData(map[string]string{"a": "changed"}),
				metav1.ApplyOptions{FieldManager: "applier"})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := pruned.Data["b"]; ok || pruned.Labels["team"] != "a" {
				t.Fatalf("after pruning: data %v labels %v", pruned.Data, pruned.Labels)
			}

			// An apply that creates, with a container list keyed by name.
			pods := cs.CoreV1().Pods(ns)
			p, err := pods.Apply(ctx, corev1ac.Pod("p", ns).WithSpec(corev1ac.PodSpec().
				WithContainers(corev1ac.Container().WithName("c").WithImage("registry.k8s.io/pause:3.10"))),
				metav1.ApplyOptions{FieldManager: "applier"})
			if err != nil {
				t.Fatal(err)
			}
			pc, err := corev1ac.ExtractPod(p, "applier")
			if err != nil {
				t.Fatalf("ExtractPod: %v", err)
			}
			if pc.Spec == nil || len(pc.Spec.Containers) != 1 || *pc.Spec.Containers[0].Image != "registry.k8s.io/pause:3.10" {
				t.Fatalf("extracted pod: %+v", pc.Spec)
			}
			// The status writer owns its fields under the status subresource.
			p.Status.Phase = corev1.PodRunning
			st, err := pods.UpdateStatus(ctx, p, metav1.UpdateOptions{FieldManager: "kubelet"})
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, e := range st.ManagedFields {
				if e.Manager == "kubelet" && e.Subresource == "status" && e.Operation == metav1.ManagedFieldsOperationUpdate {
					found = true
				}
			}
			if !found {
				t.Errorf("no status entry for the kubelet: %+v", st.ManagedFields)
			}
		})
	}
}
