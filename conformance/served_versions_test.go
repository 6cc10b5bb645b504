// The versions Allot serves beside the stored ones, through client-go's own typed clients of
// those versions: resource.k8s.io v1beta1 and v1beta2 (stored as v1, converted as Kubernetes
// converts them) and events.k8s.io/v1 (the same objects as core/v1 Events).
package conformance

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"allot.dev/conformance/harness"
)

func TestResourceV1beta1AndV1beta2AreConverted(t *testing.T) {
	a := harness.StartAllot(t)
	// v1beta1, of another shape than v1, travels as its own messages: protobuf only, both
	// ways; v1beta2, of v1's shape, in protobuf as client-go asks by default.
	beta1 := kubernetes.NewForConfigOrDie(protobufOnly(a.AdminConfig(t)))
	cs := kubernetes.NewForConfigOrDie(a.AdminConfig(t))
	ctx := context.Background()
	claims, err := beta1.ResourceV1beta1().ResourceClaims("default").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer claims.Stop()

	// A v1beta1 slice keeps a device's fields under basic; v1 shows them flat.
	slice := &resourcev1beta1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "node-1-gpus"},
		Spec: resourcev1beta1.ResourceSliceSpec{
			Driver:   "gpu.example.com",
			Pool:     resourcev1beta1.ResourcePool{Name: "node-1", ResourceSliceCount: 1},
			NodeName: "node-1",
			Devices: []resourcev1beta1.Device{{Name: "gpu-0", Basic: &resourcev1beta1.BasicDevice{
				Attributes: map[resourcev1beta1.QualifiedName]resourcev1beta1.DeviceAttribute{
					"model": {StringValue: ptr.To("a100")}},
				BindsToNode:              ptr.To(true),
				BindingConditions:        []string{"example.com/ready"},
				BindingFailureConditions: []string{"example.com/failed"},
			}}},
		},
	}
	if _, err := beta1.ResourceV1beta1().ResourceSlices().Create(ctx, slice, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	v1slice, err := cs.ResourceV1().ResourceSlices().Get(ctx, "node-1-gpus", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := v1slice.Spec.Devices[0]
	if *d.Attributes["model"].StringValue != "a100" || !*d.BindsToNode ||
		d.BindingConditions[0] != "example.com/ready" || *v1slice.Spec.NodeName != "node-1" {
		t.Fatalf("v1 view of a v1beta1 slice: %+v", v1slice.Spec)
	}
	beta2, err := cs.ResourceV1beta2().ResourceSlices().Get(ctx, "node-1-gpus", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if beta2.APIVersion != "" && beta2.APIVersion != "resource.k8s.io/v1beta2" {
		t.Errorf("v1beta2 get answered %s", beta2.APIVersion)
	}
	if *beta2.Spec.Devices[0].Attributes["model"].StringValue != "a100" {
		t.Errorf("v1beta2 view: %+v", beta2.Spec.Devices[0])
	}
	back, err := beta1.ResourceV1beta1().ResourceSlices().Get(ctx, "node-1-gpus", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if back.Spec.Devices[0].Basic == nil || *back.Spec.Devices[0].Basic.Attributes["model"].StringValue != "a100" {
		t.Errorf("v1beta1 round trip lost the basic device: %+v", back.Spec.Devices[0])
	}

	// A v1beta1 claim keeps its exact request at the request's top level; v1 nests it.
	claim := &resourcev1beta1.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "one-gpu", Namespace: "default"},
		Spec: resourcev1beta1.ResourceClaimSpec{Devices: resourcev1beta1.DeviceClaim{
			Requests: []resourcev1beta1.DeviceRequest{{Name: "gpu", DeviceClassName: "gpu.example.com",
				AllocationMode: resourcev1beta1.DeviceAllocationModeExactCount, Count: 2}},
		}},
	}
	if _, err := beta1.ResourceV1beta1().ResourceClaims("default").Create(ctx, claim, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-claims.ResultChan():
		got, ok := ev.Object.(*resourcev1beta1.ResourceClaim)
		if ev.Type != watch.Added || !ok || got.Spec.Devices.Requests[0].DeviceClassName != "gpu.example.com" {
			t.Fatalf("v1beta1 watch event %s %+v", ev.Type, ev.Object)
		}
	case <-time.After(testTimeout):
		t.Fatal("no v1beta1 watch event")
	}
	v1claim, err := cs.ResourceV1().ResourceClaims("default").Get(ctx, "one-gpu", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	exactly := v1claim.Spec.Devices.Requests[0].Exactly
	if exactly == nil || exactly.DeviceClassName != "gpu.example.com" || exactly.Count != 2 {
		t.Fatalf("v1 view of a v1beta1 claim: %+v", v1claim.Spec.Devices.Requests[0])
	}
	list, err := beta1.ResourceV1beta1().ResourceClaims("default").List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Items[0].Spec.Devices.Requests[0].Count != 2 {
		t.Fatalf("v1beta1 list: %+v, %v", list, err)
	}

	// A DeviceClass through v1beta2: create, watch, update.
	w, err := cs.ResourceV1beta2().DeviceClasses().Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	class := &resourcev1beta2.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu.example.com"},
		Spec: resourcev1beta2.DeviceClassSpec{Selectors: []resourcev1beta2.DeviceSelector{{
			CEL: &resourcev1beta2.CELDeviceSelector{Expression: "device.driver == 'gpu.example.com'"}}}}}
	if _, err := cs.ResourceV1beta2().DeviceClasses().Create(ctx, class, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-w.ResultChan():
		got, ok := ev.Object.(*resourcev1beta2.DeviceClass)
		if ev.Type != watch.Added || !ok || got.Name != "gpu.example.com" {
			t.Fatalf("v1beta2 watch event %s %T", ev.Type, ev.Object)
		}
	case <-time.After(testTimeout):
		t.Fatal("no v1beta2 watch event")
	}
	if _, err := cs.ResourceV1().DeviceClasses().Get(ctx, "gpu.example.com", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}

	// Discovery lists the versions, v1 preferred.
	group, err := findGroup(cs, "resource.k8s.io")
	if err != nil {
		t.Fatal(err)
	}
	if group.PreferredVersion.Version != "v1" || len(group.Versions) < 3 || group.Versions[1].Version != "v1beta2" || group.Versions[2].Version != "v1beta1" {
		t.Errorf("resource.k8s.io versions: %+v", group.Versions)
	}
}

func findGroup(cs kubernetes.Interface, name string) (*metav1.APIGroup, error) {
	groups, err := cs.Discovery().ServerGroups()
	if err != nil {
		return nil, err
	}
	for i := range groups.Groups {
		if groups.Groups[i].Name == name {
			return &groups.Groups[i], nil
		}
	}
	return nil, nil
}

func TestEventsV1IsCoreEvents(t *testing.T) {
	a := harness.StartAllot(t)
	for name, cfg := range encodings(a.AdminConfig(t)) {
		t.Run(name, func(t *testing.T) {
			cs := kubernetes.NewForConfigOrDie(cfg)
			ctx := context.Background()
			ev := &eventsv1.Event{
				ObjectMeta:          metav1.ObjectMeta{Name: "p." + name, Namespace: "default"},
				EventTime:           metav1.NowMicro(),
				ReportingController: "example.com/controller",
				ReportingInstance:   "controller-1",
				Action:              "Bind",
				Reason:              "Scheduled",
				Regarding:           corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "p"},
				Note:                "bound to node-1",
				Type:                corev1.EventTypeNormal,
			}
			if _, err := cs.EventsV1().Events("default").Create(ctx, ev, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			core, err := cs.CoreV1().Events("default").Get(ctx, ev.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if core.Message != "bound to node-1" || core.InvolvedObject.Name != "p" ||
				core.ReportingController != "example.com/controller" {
				t.Fatalf("core view of an events.k8s.io/v1 Event: %+v", core)
			}
			back, err := cs.EventsV1().Events("default").Get(ctx, ev.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if back.Note != ev.Note || back.Regarding.Name != "p" || back.Action != "Bind" {
				t.Fatalf("events.k8s.io/v1 round trip: %+v", back)
			}
		})
	}
}
