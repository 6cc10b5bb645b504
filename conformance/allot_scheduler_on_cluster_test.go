// Allot's scheduler as a second scheduler on a real cluster (kube-apiserver and
// kube-controller-manager 1.37), signed in as Kubernetes' own system:kube-scheduler and using
// nothing of Allot's API (docs/security.md "On a real cluster").
package conformance

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"allot.dev/conformance/harness"
)

const allotSecondary = "allot-secondary"

func gpuPod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{
			SchedulerName: allotSecondary,
			Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: "gpu"}}}}},
			ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptrTo("one-gpu")}},
		},
	}
}

// realCluster starts kube-apiserver and kube-controller-manager 1.37, and `allot node-sim` as a
// process against them: `nodes` nodes named node-<i>, each with `gpus` GPUs that Allot's
// node-local driver publishes (a slice per node, the DeviceClass gpu.example.com), running the
// pods bound to them once their claims are reserved for them; and the ResourceClaimTemplate
// default/one-gpu. It returns the admin's client and a context that ends with the test.
func realCluster(t *testing.T, nodes, gpus int) (*harness.KubeAPIServer, kubernetes.Interface, context.Context) {
	t.Helper()
	k := harness.StartKubeAPIServer(t)
	k.StartKubeControllerManager(t)
	cs := clientset(t, k.Config())
	ctx, cancel := context.WithTimeout(context.Background(), scheduleTimeout)
	t.Cleanup(cancel)
	if err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(context.Context) (bool, error) {
		_, err := cs.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		return err == nil, ignoreNotFound(err)
	}); err != nil {
		t.Fatalf("the default service account: %v", err)
	}
	sim := harness.StartProcess(t, "allot-node-sim", harness.AllotBinary(t), "node-sim",
		"--kubeconfig", k.Kubeconfig(t, "admin"), "--nodes", fmt.Sprint(nodes), "--name-prefix", "node",
		"--sim-gpus-per-node", fmt.Sprint(gpus))
	if err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(context.Context) (bool, error) {
		if sim.Exited() {
			t.Fatal("allot node-sim ended")
		}
		if gpus == 0 {
			list, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
			return err == nil && len(list.Items) == nodes, err
		}
		slices, err := cs.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{})
		return err == nil && len(slices.Items) == nodes, err
	}); err != nil {
		t.Fatalf("the simulated nodes and their slices: %v", err)
	}
	if _, err := cs.ResourceV1().ResourceClaimTemplates("default").Create(ctx, &resourcev1.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: "one-gpu", Namespace: "default"},
		Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{
			Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "gpu",
				Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu.example.com"}}}}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return k, cs, ctx
}

// startAllotScheduler runs `allot scheduler` against `k` as Kubernetes' own
// system:kube-scheduler, with the profile of docs/security.md (nothing of Allot's own API) and
// no --feature-gates: it finds for itself that PodSchedulingContexts (KEP-3063, gone from
// Kubernetes since 1.32) are not to be had, says so once, and runs without them.
func startAllotScheduler(t *testing.T, k *harness.KubeAPIServer) *harness.Process {
	t.Helper()
	config := filepath.Join(t.TempDir(), "secondary.yaml")
	if err := os.WriteFile(config, []byte(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: `+allotSecondary+`
  plugins:
    multiPoint:
      disabled:
      - name: Reservation
`), 0o600); err != nil {
		t.Fatal(err)
	}
	return harness.StartProcess(t, "allot-scheduler", harness.AllotBinary(t), "scheduler",
		"--kubeconfig", k.Kubeconfig(t, "kube-scheduler"), "--config", config, "--leader-elect=false")
}

func TestAllotSchedulerOnARealCluster(t *testing.T) {
	// Two nodes with one GPU each.
	k, cs, ctx := realCluster(t, 2, 1)
	sched := startAllotScheduler(t, k)

	plain := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "plain", Namespace: "default"},
		Spec: corev1.PodSpec{SchedulerName: allotSecondary, Containers: []corev1.Container{{
			Name: "c", Image: "registry.k8s.io/pause:3.10"}}}}
	for _, p := range []*corev1.Pod{plain, gpuPod("gpu-1"), gpuPod("gpu-2"), gpuPod("gpu-3")} {
		if _, err := cs.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if p := waitBound(t, cs, "default", "plain"); p.Spec.NodeName == "" {
		t.Fatal("plain pod not bound")
	}
	// Two GPUs, one per node, for three pods, which the queue takes in no set order (they were
	// created in the same second): two bound, one per node, each with its node's GPU, and
	// running; the third unschedulable.
	gpuPods := []string{"gpu-1", "gpu-2", "gpu-3"}
	var bound []*corev1.Pod
	var waiting []string
	if err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(context.Context) (bool, error) {
		bound, waiting = nil, nil
		for _, name := range gpuPods {
			p, err := cs.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			if p.Spec.NodeName != "" {
				bound = append(bound, p)
				continue
			}
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == "Unschedulable" {
					waiting = append(waiting, name)
				}
			}
		}
		return len(bound) == 2 && len(waiting) == 1, nil
	}); err != nil {
		t.Fatalf("GPU pods: bound %d, unschedulable %v: %v", len(bound), waiting, err)
	}
	if bound[0].Spec.NodeName == bound[1].Spec.NodeName {
		t.Errorf("%s and %s both bound to %s, which has one GPU", bound[0].Name, bound[1].Name,
			bound[0].Spec.NodeName)
	}
	for _, p := range bound {
		result := claimOf(t, cs, p, "gpu").Status.Allocation.Devices.Results[0]
		if result.Pool != p.Spec.NodeName {
			t.Errorf("%s on %s was given %s/%s, another node's GPU", p.Name, p.Spec.NodeName,
				result.Pool, result.Device)
		}
		name := p.Name
		if err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(context.Context) (bool, error) {
			p, err := cs.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
			return err == nil && p.Status.Phase == corev1.PodRunning, err
		}); err != nil {
			t.Errorf("%s is not running: %v", name, err)
		}
	}
	// Priority preemption of a device pod: a pod of a higher priority with no GPU left evicts
	// one of the two, and gets its node's GPU once the victim is gone.
	if _, err := cs.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{
		ObjectMeta: metav1.ObjectMeta{Name: "urgent"}, Value: 1000}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	urgent := gpuPod("urgent")
	urgent.Spec.PriorityClassName = "urgent"
	// kube-apiserver's Priority admission reads classes from an informer: a moment to see it.
	if err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(context.Context) (bool, error) {
		_, err := cs.CoreV1().Pods("default").Create(ctx, urgent, metav1.CreateOptions{})
		if apierrors.IsForbidden(err) && strings.Contains(err.Error(), "no PriorityClass") {
			return false, nil
		}
		return err == nil, err
	}); err != nil {
		t.Fatal(err)
	}
	winner := waitBound(t, cs, "default", "urgent")
	if result := claimOf(t, cs, winner, "gpu").Status.Allocation.Devices.Results[0]; result.Pool != winner.Spec.NodeName {
		t.Errorf("urgent on %s was given %s/%s", winner.Spec.NodeName, result.Pool, result.Device)
	}
	victims := 0
	for _, p := range bound {
		// Gone, or being deleted with its containers stopped (a terminal phase: what lets
		// kube-controller-manager release its claim).
		got, err := cs.CoreV1().Pods("default").Get(ctx, p.Name, metav1.GetOptions{})
		gone := apierrors.IsNotFound(err) || (err == nil && got.UID != p.UID)
		stopped := err == nil && got.DeletionTimestamp != nil &&
			(got.Status.Phase == corev1.PodFailed || got.Status.Phase == corev1.PodSucceeded)
		if gone || stopped {
			victims++
			if p.Spec.NodeName != winner.Spec.NodeName {
				t.Errorf("the victim %s ran on %s, urgent on %s", p.Name, p.Spec.NodeName, winner.Spec.NodeName)
			}
		} else if err == nil && got.DeletionTimestamp != nil {
			t.Errorf("%s is still running (%s) while urgent holds its GPU", p.Name, got.Status.Phase)
		}
	}
	if victims != 1 {
		t.Errorf("%d pods were preempted for urgent, not one", victims)
	}

	// KEP-5007 with Allot's fabric driver as a process: a fabric GPU reaches every node but must
	// be attached first; the scheduler waits in PreBind until the driver says it is.
	startFabric(t, k, cs, 1, "300ms")
	attached := gpuPod("attached")
	attached.Spec.ResourceClaims[0].ResourceClaimTemplateName = ptrTo("one-fabric-gpu")
	if _, err := cs.CoreV1().Pods("default").Create(ctx, attached, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	onFabric := waitBound(t, cs, "default", "attached")
	claim := claimOf(t, cs, onFabric, "gpu")
	result := claim.Status.Allocation.Devices.Results[0]
	if result.Driver != "fabric.example.com" || len(result.BindingConditions) != 1 ||
		result.BindingConditions[0] != "kubernetes.io/is-attached" {
		t.Errorf("the fabric claim's allocation: %+v", result)
	}
	isAttached := false
	for _, d := range claim.Status.Devices {
		for _, c := range d.Conditions {
			isAttached = isAttached || (c.Type == "kubernetes.io/is-attached" && c.Status == metav1.ConditionTrue)
		}
	}
	if !isAttached {
		t.Errorf("attached was bound to %s before its GPU was attached: %+v", onFabric.Spec.NodeName,
			claim.Status.Devices)
	}

	said := 0
	for _, line := range strings.Split(sched.Log(), "\n") {
		if strings.Contains(line, "DRAControlPlaneController is off") {
			said++
		} else if strings.Contains(line, "forbidden") || strings.Contains(line, "could not find the requested resource") {
			t.Errorf("allot scheduler: %s", line)
		}
	}
	if said != 1 {
		t.Errorf("allot scheduler said %d times that it runs without PodSchedulingContexts, not once", said)
	}
}

// startFabric runs `allot driver fabric` against `k` with `count` GPUs of the driver
// fabric.example.com that reach every node but are attached first (`attach`, binding condition
// kubernetes.io/is-attached), and makes the template default/one-fabric-gpu.
func startFabric(t *testing.T, k *harness.KubeAPIServer, cs kubernetes.Interface, count int, attach string) {
	t.Helper()
	fabric := filepath.Join(t.TempDir(), "fabric.yaml")
	if err := os.WriteFile(fabric, []byte(fmt.Sprintf(`driver: fabric.example.com
pools:
- model: a100
  count: %d
attachLatency: %s
detachLatency: 100ms
failureRate: 0
refreshInterval: 1s
bindingConditions: [kubernetes.io/is-attached]
bindingFailureConditions: [kubernetes.io/attach-failed]
`, count, attach)), 0o600); err != nil {
		t.Fatal(err)
	}
	harness.StartProcess(t, "allot-driver-fabric", harness.AllotBinary(t), "driver", "fabric",
		"--kubeconfig", k.Kubeconfig(t, "admin"), "--config", fabric)
	if _, err := cs.ResourceV1().ResourceClaimTemplates("default").Create(context.Background(),
		&resourcev1.ResourceClaimTemplate{
			ObjectMeta: metav1.ObjectMeta{Name: "one-fabric-gpu", Namespace: "default"},
			Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{
				Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "gpu",
					Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "fabric.example.com"}}}}}},
		}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// kill -9 of `allot scheduler` while pods wait in PreBind for their fabric GPUs to be attached
// (devices allocated, pods not yet bound), then a new one: no device given twice, every pod
// bound at most once, each only once its GPU is attached, and all that fit placed in the end.
func TestAllotSchedulerRestartedAfterKill9(t *testing.T) {
	const gpus, pods = 6, 9
	k, cs, ctx := realCluster(t, 3, 0)
	startFabric(t, k, cs, gpus, "1s")
	first := startAllotScheduler(t, k)
	for i := 0; i < pods; i++ {
		p := gpuPod(fmt.Sprintf("p-%02d", i))
		p.Spec.ResourceClaims[0].ResourceClaimTemplateName = ptrTo("one-fabric-gpu")
		if _, err := cs.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	boundPods := func() []corev1.Pod {
		list, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var out []corev1.Pod
		for _, p := range list.Items {
			if p.Spec.NodeName != "" {
				out = append(out, p)
			}
		}
		return out
	}
	allocated := func() int {
		claims, err := cs.ResourceV1().ResourceClaims("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range claims.Items {
			if c.Status.Allocation != nil {
				n++
			}
		}
		return n
	}
	// Mid-way: devices allocated, their pods waiting for the attach.
	if err := wait.PollUntilContextCancel(ctx, 10*time.Millisecond, true, func(context.Context) (bool, error) {
		return allocated() >= 2, nil
	}); err != nil {
		t.Fatalf("nothing allocated before the kill: %v", err)
	}
	first.Kill()
	bound := len(boundPods())
	t.Logf("killed with %d claims allocated and %d pods bound", allocated(), bound)
	if bound == gpus {
		t.Fatal("every pod was bound before the kill: not mid-way")
	}
	startAllotScheduler(t, k)
	if err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(context.Context) (bool, error) {
		return len(boundPods()) == gpus, nil
	}); err != nil {
		t.Fatalf("after the restart %d pods are bound, not %d: %v", len(boundPods()), gpus, err)
	}
	// Every allocated claim: one device, given to no other claim, and attached.
	claims, err := cs.ResourceV1().ResourceClaims("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	holder := map[string]string{}
	for _, c := range claims.Items {
		if c.Status.Allocation == nil {
			continue
		}
		for _, r := range c.Status.Allocation.Devices.Results {
			key := r.Pool + "/" + r.Device
			if other, taken := holder[key]; taken {
				t.Errorf("%s given to both %s and %s", key, other, c.Name)
			}
			holder[key] = c.Name
		}
	}
	if len(holder) != gpus {
		t.Errorf("%d devices allocated for %d bound pods", len(holder), gpus)
	}
	for _, p := range boundPods() {
		claim := claimOf(t, cs, &p, "gpu")
		attached := false
		for _, d := range claim.Status.Devices {
			for _, c := range d.Conditions {
				attached = attached || (c.Type == "kubernetes.io/is-attached" && c.Status == metav1.ConditionTrue)
			}
		}
		if !attached {
			t.Errorf("%s is bound to %s but its GPU is not attached", p.Name, p.Spec.NodeName)
		}
	}
	// The pods that do not fit are judged unschedulable, not bound.
	if err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(context.Context) (bool, error) {
		list, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		unschedulable := 0
		for _, p := range list.Items {
			for _, c := range p.Status.Conditions {
				if p.Spec.NodeName == "" && c.Type == corev1.PodScheduled && c.Reason == "Unschedulable" {
					unschedulable++
				}
			}
		}
		return unschedulable == pods-gpus, nil
	}); err != nil {
		t.Errorf("the pods that do not fit: %v", err)
	}
	if n := len(boundPods()); n != gpus {
		t.Errorf("%d pods bound with %d GPUs", n, gpus)
	}
}
