// Allot's scheduler as a second scheduler on a real cluster (kube-apiserver and
// kube-controller-manager 1.37), signed in as Kubernetes' own system:kube-scheduler and using
// nothing of Allot's API (docs/security.md "On a real cluster").
package conformance

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"allot.dev/conformance/harness"
)

const allotSecondary = "allot-secondary"

// A node with no kubelet: its status, Ready, written by the test.
func createReadyNode(t *testing.T, cs kubernetes.Interface, name string) {
	t.Helper()
	ctx := context.Background()
	node, err := cs.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"),
		corev1.ResourceMemory: resource.MustParse("16Gi"), corev1.ResourcePods: resource.MustParse("110")}
	node.Status.Capacity, node.Status.Allocatable = res, res
	node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue,
		Reason: "KubeletReady", LastHeartbeatTime: metav1.Now(), LastTransitionTime: metav1.Now()}}
	if _, err := cs.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

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

func TestAllotSchedulerOnARealCluster(t *testing.T) {
	k := harness.StartKubeAPIServer(t)
	k.StartKubeControllerManager(t)
	cs := clientset(t, k.Config())
	ctx, cancel := context.WithTimeout(context.Background(), scheduleTimeout)
	defer cancel()
	if err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(context.Context) (bool, error) {
		_, err := cs.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		return err == nil, ignoreNotFound(err)
	}); err != nil {
		t.Fatalf("the default service account: %v", err)
	}
	createReadyNode(t, cs, "node-a")
	createReadyNode(t, cs, "node-b")
	// Two GPUs on node-b, published as a driver would.
	if _, err := cs.ResourceV1().DeviceClasses().Create(ctx, &resourcev1.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: "gpu.example.com"},
		Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{
			CEL: &resourcev1.CELDeviceSelector{Expression: "device.driver == 'gpu.example.com'"}}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ResourceV1().ResourceSlices().Create(ctx, &resourcev1.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "node-b-gpus"},
		Spec: resourcev1.ResourceSliceSpec{Driver: "gpu.example.com", NodeName: ptrTo("node-b"),
			Pool:    resourcev1.ResourcePool{Name: "node-b", ResourceSliceCount: 1},
			Devices: []resourcev1.Device{{Name: "gpu-0"}, {Name: "gpu-1"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ResourceV1().ResourceClaimTemplates("default").Create(ctx, &resourcev1.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: "one-gpu", Namespace: "default"},
		Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{
			Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "gpu",
				Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu.example.com"}}}}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// The profile of docs/security.md: nothing of Allot's own API.
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
	// No --feature-gates: the scheduler finds for itself that PodSchedulingContexts (KEP-3063,
	// gone from Kubernetes since 1.32) are not to be had, says so once, and runs without them.
	sched := harness.StartProcess(t, "allot-scheduler", harness.AllotBinary(t), "scheduler",
		"--kubeconfig", k.Kubeconfig(t, "kube-scheduler"), "--config", config, "--leader-elect=false")

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
	// Two GPUs for three pods, which the queue takes in no set order (they were created in the
	// same second): two bound to node-b with distinct devices, the third unschedulable.
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
	devices := map[string]string{}
	for _, p := range bound {
		if p.Spec.NodeName != "node-b" {
			t.Errorf("%s bound to %s, not node-b (the GPUs' node)", p.Name, p.Spec.NodeName)
		}
		device := claimOf(t, cs, p, "gpu").Status.Allocation.Devices.Results[0].Device
		if other, taken := devices[device]; taken {
			t.Errorf("%s and %s were both given %s", other, p.Name, device)
		}
		devices[device] = p.Name
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
