// A real DRA driver library against Allot: k8s.io/dynamic-resource-allocation's ResourceSlice
// controller (what kubelet plugins built on the library use) publishes a driver's node-local
// pool; Allot's scheduler allocates from it; republishing with a new generation retires the
// old slices and the next allocation comes from the new ones.
package conformance

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/dynamic-resource-allocation/resourceslice"

	"allot.dev/conformance/harness"
)

const sliceDriver = "conformance.allot.dev"

func devices(names ...string) []resourceapi.Device {
	var out []resourceapi.Device
	for _, n := range names {
		model := "A100"
		out = append(out, resourceapi.Device{Name: n, Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
			"model": {StringValue: &model}}})
	}
	return out
}

// waitFor polls `cond` until it holds or the test's time is up.
func waitFor(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	last := ""
	for time.Now().Before(deadline) {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("timed out waiting for %s (last: %s)", what, last)
}

func poolSlices(t *testing.T, cs kubernetes.Interface, pool string) []resourceapi.ResourceSlice {
	t.Helper()
	list, err := cs.ResourceV1().ResourceSlices().List(context.Background(),
		metav1.ListOptions{FieldSelector: "spec.driver=" + sliceDriver})
	if err != nil {
		t.Fatal(err)
	}
	var out []resourceapi.ResourceSlice
	for _, s := range list.Items {
		if s.Spec.Pool.Name == pool {
			out = append(out, s)
		}
	}
	return out
}

// allocate creates a claim and a pod that uses it, and returns the device the claim got once
// the pod is bound.
func allocate(t *testing.T, cs kubernetes.Interface, name string) (node, device string) {
	t.Helper()
	ctx := context.Background()
	_, err := cs.ResourceV1().ResourceClaims("default").Create(ctx, &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{{
			Name: "gpu", Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: sliceDriver}}}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := pod(name, nil)
	p.Spec.Containers[0].Resources.Claims = []corev1.ResourceClaim{{Name: "gpu"}}
	p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: &name}}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "pod "+name+" bound with its claim allocated", func() (bool, string) {
		got, err := cs.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		claim, err := cs.ResourceV1().ResourceClaims("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		if got.Spec.NodeName == "" || claim.Status.Allocation == nil {
			return false, fmt.Sprintf("node %q, conditions %+v", got.Spec.NodeName, got.Status.Conditions)
		}
		r := claim.Status.Allocation.Devices.Results
		if len(r) != 1 || r[0].Driver != sliceDriver {
			return false, fmt.Sprintf("results %+v", r)
		}
		node, device = got.Spec.NodeName, r[0].Pool+"/"+r[0].Device
		return true, ""
	})
	return node, device
}

func TestResourceSliceControllerPublishesPools(t *testing.T) {
	allot := harness.StartAllot(t, "--store", "memory", "--sim-nodes", "1", "--no-controllers")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	admin := clientset(t, allot.AdminConfig(t))
	const nodeName = "allot-node-0"
	var node *corev1.Node
	waitFor(t, "the simulated node", func() (bool, string) {
		var err error
		node, err = admin.CoreV1().Nodes().Get(ctx, nodeName, metav1.GetOptions{})
		return err == nil, fmt.Sprint(err)
	})
	_, err := admin.ResourceV1().DeviceClasses().Create(ctx, &resourceapi.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: sliceDriver},
		Spec: resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{{
			CEL: &resourceapi.CELDeviceSelector{Expression: fmt.Sprintf("device.driver == %q", sliceDriver)}}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	// The driver runs as its own identity, which Allot lets write only its own slices, and
	// speaks protobuf as the library's users do.
	driverCfg := harness.Config(t, allot.IssueKubeconfig(t, "system:dra-driver:"+sliceDriver, "system:dra-drivers"))
	driverCfg.ContentType = "application/vnd.kubernetes.protobuf"
	driver := clientset(t, driverCfg)
	var errs []string
	controller, err := resourceslice.StartController(ctx, resourceslice.Options{
		DriverName: sliceDriver,
		KubeClient: driver,
		Owner:      &resourceslice.Owner{APIVersion: "v1", Kind: "Node", Name: nodeName, UID: node.UID},
		Resources: &resourceslice.DriverResources{Pools: map[string]resourceslice.Pool{
			nodeName: {Generation: 1, Slices: []resourceslice.Slice{
				{Devices: devices("gpu-0")}, {Devices: devices("gpu-1")}}},
		}},
		ErrorHandler: func(_ context.Context, err error, msg string) {
			errs = append(errs, msg+": "+err.Error())
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer controller.Stop()

	waitFor(t, "two slices of generation 1", func() (bool, string) {
		slices := poolSlices(t, admin, nodeName)
		if len(slices) != 2 {
			return false, fmt.Sprintf("%d slices, errors %v", len(slices), errs)
		}
		for _, s := range slices {
			if s.Spec.Pool.Generation != 1 || s.Spec.Pool.ResourceSliceCount != 2 ||
				s.Spec.NodeName == nil || *s.Spec.NodeName != nodeName || len(s.OwnerReferences) != 1 {
				return false, fmt.Sprintf("slice %+v", s.Spec)
			}
		}
		return true, ""
	})
	onNode, first := allocate(t, admin, "first")
	if onNode != nodeName || (first != nodeName+"/gpu-0" && first != nodeName+"/gpu-1") {
		t.Fatalf("first claim: node %s device %s", onNode, first)
	}

	// Republished: one slice, another device, generation 2.
	controller.Update(&resourceslice.DriverResources{Pools: map[string]resourceslice.Pool{
		nodeName: {Generation: 2, Slices: []resourceslice.Slice{{Devices: devices("gpu-2")}}},
	}})
	waitFor(t, "the pool retired to one slice of generation 2", func() (bool, string) {
		slices := poolSlices(t, admin, nodeName)
		var names []string
		for _, s := range slices {
			if s.Spec.Pool.Generation != 2 {
				return false, fmt.Sprintf("slice %s still at generation %d", s.Name, s.Spec.Pool.Generation)
			}
			for _, d := range s.Spec.Devices {
				names = append(names, d.Name)
			}
		}
		sort.Strings(names)
		return len(slices) == 1 && fmt.Sprint(names) == "[gpu-2]", fmt.Sprintf("%d slices, devices %v", len(slices), names)
	})
	if _, second := allocate(t, admin, "second"); second != nodeName+"/gpu-2" {
		t.Fatalf("second claim got %s, want the republished gpu-2", second)
	}
	if stats := controller.GetStats(); stats.NumCreates < 2 {
		t.Errorf("controller stats: %+v", stats)
	}
	if len(errs) != 0 {
		t.Errorf("the controller reported errors: %v", errs)
	}
}
