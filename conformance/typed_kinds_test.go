// Every kind Allot serves, through its client-go 1.37 typed client, in JSON and in protobuf:
// create, get, list, update, patch in the four patch types (apply included), the status
// subresource where the kind has one, delete and deletecollection.
package conformance

import (
	"context"
	"fmt"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"allot.dev/conformance/harness"
)

// What every typed client of client-go has (gentype.ClientWithList).
type typedClient[T runtime.Object, L runtime.Object] interface {
	Create(context.Context, T, metav1.CreateOptions) (T, error)
	Get(context.Context, string, metav1.GetOptions) (T, error)
	List(context.Context, metav1.ListOptions) (L, error)
	Update(context.Context, T, metav1.UpdateOptions) (T, error)
	Patch(context.Context, string, types.PatchType, []byte, metav1.PatchOptions, ...string) (T, error)
	Delete(context.Context, string, metav1.DeleteOptions) error
}

// Services have no deletecollection, in Kubernetes as in Allot.
type withDeleteCollection interface {
	DeleteCollection(context.Context, metav1.DeleteOptions, metav1.ListOptions) error
}

// Which kinds ("v1/Pod", "apps/v1/ReplicaSet") have a status subresource, from discovery.
var statusSubresources = map[string]bool{}

type withStatus[T runtime.Object] interface {
	UpdateStatus(context.Context, T, metav1.UpdateOptions) (T, error)
}

// kindCase exercises one kind through its typed client.
type kindCase struct {
	name string
	run  func(t *testing.T, cs kubernetes.Interface, ns string)
}

// exercise runs every verb on the kind `make` builds valid objects of (named as asked, in `ns`
// when the kind is namespaced).
func exercise[T runtime.Object, L runtime.Object](t *testing.T, c typedClient[T, L], make func(name string) T,
	apiVersion, kind string, namespaced bool, ns string) {
	t.Helper()
	ctx := context.Background()
	prefix := ""
	if !namespaced {
		prefix = ns + "-" // cluster-scoped objects of every case side by side
	}
	one, two := prefix+"one", prefix+"two"
	created, err := c.Create(ctx, make(one), metav1.CreateOptions{FieldManager: "conformance"})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if _, err := c.Create(ctx, make(one), metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create again: want AlreadyExists, got %v", err)
	}
	got, err := c.Get(ctx, one, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	if _, err := c.Get(ctx, "none", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get a missing one: want NotFound, got %v", err)
	}
	acc, _ := meta.Accessor(got)
	if acc.GetUID() == "" {
		t.Fatal("get: no uid")
	}
	createdAcc, _ := meta.Accessor(created)
	acc.SetLabels(map[string]string{"updated": "yes"})
	updated, err := c.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update: %v", err)
	}
	if ua, _ := meta.Accessor(updated); ua.GetResourceVersion() == createdAcc.GetResourceVersion() {
		t.Fatal("update: resourceVersion did not change")
	}
	acc.SetResourceVersion(createdAcc.GetResourceVersion()) // stale
	if _, err := c.Update(ctx, got, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("stale update: want Conflict, got %v", err)
	}
	ref := "/metadata/labels"
	patches := []struct {
		pt   types.PatchType
		body string
		key  string
	}{
		{types.MergePatchType, `{"metadata":{"labels":{"merge":"yes"}}}`, "merge"},
		{types.StrategicMergePatchType, `{"metadata":{"labels":{"strategic":"yes"}}}`, "strategic"},
		{types.JSONPatchType, `[{"op":"add","path":"` + ref + `/json","value":"yes"}]`, "json"},
	}
	for _, p := range patches {
		out, err := c.Patch(ctx, one, p.pt, []byte(p.body), metav1.PatchOptions{})
		if err != nil {
			t.Fatalf("%s patch: %v", p.pt, err)
		}
		if a, _ := meta.Accessor(out); a.GetLabels()[p.key] != "yes" {
			t.Fatalf("%s patch: labels %v", p.pt, a.GetLabels())
		}
	}
	metadata := `"metadata":{"name":"` + one + `","labels":{"applied":"yes"}}`
	if namespaced {
		metadata = `"metadata":{"name":"one","namespace":"` + ns + `","labels":{"applied":"yes"}}`
	}
	apply := fmt.Sprintf(`{"apiVersion":%q,"kind":%q,%s}`, apiVersion, kind, metadata)
	out, err := c.Patch(ctx, one, types.ApplyPatchType, []byte(apply), metav1.PatchOptions{FieldManager: "applier"})
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	if a, _ := meta.Accessor(out); a.GetLabels()["applied"] != "yes" || a.GetLabels()["merge"] != "yes" ||
		len(a.GetManagedFields()) == 0 {
		t.Fatalf("apply: labels %v, managedFields %v", a.GetLabels(), a.GetManagedFields())
	}
	if sc, ok := any(c).(withStatus[T]); ok && statusSubresources[apiVersion+"/"+kind] {
		if _, err := sc.UpdateStatus(ctx, out, metav1.UpdateOptions{FieldManager: "status-writer"}); err != nil {
			t.Fatalf("update status: %v", err)
		}
	}
	if _, err := c.Create(ctx, make(two), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create two: %v", err)
	}
	list, err := c.List(ctx, metav1.ListOptions{LabelSelector: "applied=yes"})
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	if items, _ := meta.ExtractList(list); len(items) != 1 {
		t.Fatalf("list by label: %d items", len(items))
	}
	if err := c.Delete(ctx, one, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if dc, ok := any(c).(withDeleteCollection); ok {
		// By name: a collection may hold objects nobody may delete (system PriorityClasses).
		if err := dc.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{FieldSelector: "metadata.name=" + two}); err != nil {
			t.Fatalf("deletecollection: %v", err)
		}
	} else if err := c.Delete(ctx, two, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete two: %v", err)
	}
	for _, name := range []string{one, two} {
		if _, err := c.Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Fatalf("%s after delete: want NotFound, got %v", name, err)
		}
	}
}

func om(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name} }

func podTemplate() corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "x"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}}
}

func TestTypedClientsForEveryKind(t *testing.T) {
	allot := harness.StartAllot(t, "--store", "memory", "--no-scheduler", "--no-controllers")
	selector := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "x"}}
	one := int32(1)
	deviceClass := "dc"
	cases := []kindCase{
		{"ConfigMap", func(t *testing.T, cs kubernetes.Interface, ns string) {
			exercise(t, cs.CoreV1().ConfigMaps(ns), func(n string) *corev1.ConfigMap {
				return &corev1.ConfigMap{ObjectMeta: om(n), Data: map[string]string{"a": "b"}}
			}, "v1", "ConfigMap", true, ns)
		}},
		{"Secret", func(t *testing.T, cs kubernetes.Interface, ns string) {
			exercise(t, cs.CoreV1().Secrets(ns), func(n string) *corev1.Secret {
				return &corev1.Secret{ObjectMeta: om(n), Data: map[string][]byte{"k": []byte("v\x00")}}
			}, "v1", "Secret", true, ns)
		}},
		{"ServiceAccount", func(t *testing.T, cs kubernetes.Interface, ns string) {
			exercise(t, cs.CoreV1().ServiceAccounts(ns), func(n string) *corev1.ServiceAccount {
				return &corev1.ServiceAccount{ObjectMeta: om(n)}
			}, "v1", "ServiceAccount", true, ns)
		}},
		{"Service", func(t *testing.T, cs kubernetes.Interface, ns string) {
			exercise(t, cs.CoreV1().Services(ns), func(n string) *corev1.Service {
				return &corev1.Service{ObjectMeta: om(n), Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}
			}, "v1", "Service", true, ns)
		}},
		{"PersistentVolumeClaim", func(t *testing.T, cs kubernetes.Interface, ns string) {
			exercise(t, cs.CoreV1().PersistentVolumeClaims(ns), func(n string) *corev1.PersistentVolumeClaim {
				return &corev1.PersistentVolumeClaim{ObjectMeta: om(n), Spec: corev1.PersistentVolumeClaimSpec{
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
						corev1.ResourceStorage: resource.MustParse("1Gi")}}}}
			}, "v1", "PersistentVolumeClaim", true, ns)
		}},
		{"PersistentVolume", func(t *testing.T, cs kubernetes.Interface, ns string) {
			exercise(t, cs.CoreV1().PersistentVolumes(), func(n string) *corev1.PersistentVolume {
				return &corev1.PersistentVolume{ObjectMeta: om(n), Spec: corev1.PersistentVolumeSpec{
					AccessModes:            []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
					PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp"}}}}
			}, "v1", "PersistentVolume", false, ns)
		}},
		{"ReplicationController", func(t *testing.T, cs kubernetes.Interface, ns string) {
			exercise(t, cs.CoreV1().ReplicationControllers(ns), func(n string) *corev1.ReplicationController {
				tmpl := podTemplate()
				return &corev1.ReplicationController{ObjectMeta: om(n), Spec: corev1.ReplicationControllerSpec{
					Replicas: &one, Selector: map[string]string{"app": "x"}, Template: &tmpl}}
			}, "v1", "ReplicationController", true, ns)
		}},
		{"ReplicaSet", func(t *testing.T, cs kubernetes.Interface, ns string) {
			exercise(t, cs.AppsV1().ReplicaSets(ns), func(n string) *appsv1.ReplicaSet {
				return &appsv1.ReplicaSet{ObjectMeta: om(n), Spec: appsv1.ReplicaSetSpec{
					Replicas: &one, Selector: selector, Template: podTemplate()}}
			}, "apps/v1", "ReplicaSet", true, ns)
		}},
		{"StatefulSet", func(t *testing.T, cs kubernetes.Interface, ns string) {
			exercise(t, cs.AppsV1().StatefulSets(ns), func(n string) *appsv1.StatefulSet {
				return &appsv1.StatefulSet{ObjectMeta: om(n), Spec: appsv1.StatefulSetSpec{
					Replicas: &one, Selector: selector, Template: podTemplate(), ServiceName: "svc"}}
			}, "apps/v1", "StatefulSet", true, ns)
		}},
		{"StorageClass", func(t *testing.T, cs kubernetes.Interface, ns string) {
			exercise(t, cs.StorageV1().StorageClasses(), func(n string) *storagev1.StorageClass {
				return &storagev1.StorageClass{ObjectMeta: om(n), Provisioner: "example.com/disk"}
			}, "storage.k8s.io/v1", "StorageClass", false, ns)
		}},
		{"CSIDriver", func(t *testing.T, cs kubernetes.Interface, ns string) {
			exercise(t, cs.StorageV1().CSIDrivers(), func(n string) *storagev1.CSIDriver {
				return &storagev1.CSIDriver{ObjectMeta: om(n)}
			}, "storage.k8s.io/v1", "CSIDriver", false, ns)
		}},
		{"CSIStorageCapacity", func(t *testing.T, cs kubernetes.Interface, ns string) {
			exercise(t, cs.StorageV1().CSIStorageCapacities(ns), func(n string) *storagev1.CSIStorageCapacity {
				return &storagev1.CSIStorageCapacity{ObjectMeta: om(n), StorageClassName: "sc"}
			}, "storage.k8s.io/v1", "CSIStorageCapacity", true, ns)
		}},
		{"VolumeAttachment", func(t *testing.T, cs kubernetes.Interface, ns string) {
			pv := "pv"
			exercise(t, cs.StorageV1().VolumeAttachments(), func(n string) *storagev1.VolumeAttachment {
				return &storagev1.VolumeAttachment{ObjectMeta: om(n), Spec: storagev1.VolumeAttachmentSpec{
					Attacher: "example.com", NodeName: "n1", Source: storagev1.VolumeAttachmentSource{PersistentVolumeName: &pv}}}
			}, "storage.k8s.io/v1", "VolumeAttachment", false, ns)
		}},
		{"Lease", func(t *testing.T, cs kubernetes.Interface, ns string) {
			exercise(t, cs.CoordinationV1().Leases(ns), func(n string) *coordinationv1.Lease {
				return &coordinationv1.Lease{ObjectMeta: om(n)}
			}, "coordination.k8s.io/v1", "Lease", true, ns)
		}},
		{"PodDisruptionBudget", func(t *testing.T, cs kubernetes.Interface, ns string) {
			exercise(t, cs.PolicyV1().PodDisruptionBudgets(ns), func(n string) *policyv1.PodDisruptionBudget {
				return &policyv1.PodDisruptionBudget{ObjectMeta: om(n), Spec: policyv1.PodDisruptionBudgetSpec{Selector: selector}}
			}, "policy/v1", "PodDisruptionBudget", true, ns)
		}},
		{"PriorityClass", func(t *testing.T, cs kubernetes.Interface, ns string) {
			exercise(t, cs.SchedulingV1().PriorityClasses(), func(n string) *schedulingv1.PriorityClass {
				return &schedulingv1.PriorityClass{ObjectMeta: om(n), Value: 10}
			}, "scheduling.k8s.io/v1", "PriorityClass", false, ns)
		}},
		{"Role", func(t *testing.T, cs kubernetes.Interface, ns string) {
			exercise(t, cs.RbacV1().Roles(ns), func(n string) *rbacv1.Role {
				return &rbacv1.Role{ObjectMeta: om(n), Rules: []rbacv1.PolicyRule{{Verbs: []string{"get"}, APIGroups: []string{""}, Resources: []string{"pods"}}}}
			}, "rbac.authorization.k8s.io/v1", "Role", true, ns)
		}},
		{"Event (events.k8s.io/v1)", func(t *testing.T, cs kubernetes.Interface, ns string) {
			exercise(t, cs.EventsV1().Events(ns), func(n string) *eventsv1.Event {
				return &eventsv1.Event{ObjectMeta: om(n), EventTime: metav1.NowMicro(), Reason: "Tested",
					Action: "Test", Type: "Normal", ReportingController: "example.com/test", ReportingInstance: "i",
					Regarding: corev1.ObjectReference{Kind: "Pod", Name: "p", Namespace: ns}, Note: "a note"}
			}, "events.k8s.io/v1", "Event", true, ns)
		}},
		{"DeviceClass", func(t *testing.T, cs kubernetes.Interface, ns string) {
			exercise(t, cs.ResourceV1().DeviceClasses(), func(n string) *resourcev1.DeviceClass {
				return &resourcev1.DeviceClass{ObjectMeta: om(n)}
			}, "resource.k8s.io/v1", "DeviceClass", false, ns)
		}},
		{"ResourceClaim", func(t *testing.T, cs kubernetes.Interface, ns string) {
			exercise(t, cs.ResourceV1().ResourceClaims(ns), func(n string) *resourcev1.ResourceClaim {
				return &resourcev1.ResourceClaim{ObjectMeta: om(n), Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
					Requests: []resourcev1.DeviceRequest{{Name: "r", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: deviceClass}}}}}}
			}, "resource.k8s.io/v1", "ResourceClaim", true, ns)
		}},
		{"ResourceClaimTemplate", func(t *testing.T, cs kubernetes.Interface, ns string) {
			exercise(t, cs.ResourceV1().ResourceClaimTemplates(ns), func(n string) *resourcev1.ResourceClaimTemplate {
				return &resourcev1.ResourceClaimTemplate{ObjectMeta: om(n), Spec: resourcev1.ResourceClaimTemplateSpec{
					Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{
						{Name: "r", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: deviceClass}}}}}}}
			}, "resource.k8s.io/v1", "ResourceClaimTemplate", true, ns)
		}},
		{"ResourceSlice", func(t *testing.T, cs kubernetes.Interface, ns string) {
			exercise(t, cs.ResourceV1().ResourceSlices(), func(n string) *resourcev1.ResourceSlice {
				return &resourcev1.ResourceSlice{ObjectMeta: om(n), Spec: resourcev1.ResourceSliceSpec{
					Driver: "d.example.com", AllNodes: ptrTo(true),
					Pool: resourcev1.ResourcePool{Name: n, ResourceSliceCount: 1}}}
			}, "resource.k8s.io/v1", "ResourceSlice", false, ns)
		}},
		{"DeviceTaintRule", func(t *testing.T, cs kubernetes.Interface, ns string) {
			exercise(t, cs.ResourceV1().DeviceTaintRules(), func(n string) *resourcev1.DeviceTaintRule {
				return &resourcev1.DeviceTaintRule{ObjectMeta: om(n), Spec: resourcev1.DeviceTaintRuleSpec{
					Taint: resourcev1.DeviceTaint{Key: "example.com/broken", Effect: resourcev1.DeviceTaintEffectNoSchedule}}}
			}, "resource.k8s.io/v1", "DeviceTaintRule", false, ns)
		}},
	}
	_, lists, err := clientset(t, allot.AdminConfig(t)).Discovery().ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lists {
		for _, r := range l.APIResources {
			if strings.HasSuffix(r.Name, "/status") {
				for _, k := range l.APIResources {
					if k.Name == strings.TrimSuffix(r.Name, "/status") {
						statusSubresources[l.GroupVersion+"/"+k.Kind] = true
					}
				}
			}
		}
	}
	for encoding, cfg := range encodings(allot.AdminConfig(t)) {
		cs := clientset(t, cfg)
		for i, c := range cases {
			t.Run(encoding+"/"+c.name, func(t *testing.T) {
				ns := fmt.Sprintf("kinds-%s-%d", encoding, i)
				createNamespace(t, cs, ns)
				c.run(t, cs, ns)
			})
		}
	}
}

func ptrTo[T any](v T) *T { return &v }
