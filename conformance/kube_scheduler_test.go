// The real kube-scheduler 1.37 (built from k8s.io/kubernetes, default profile, DRA and its 1.37
// defaults on) schedules on `allot serve --no-scheduler`: plain pods, pods with claims from
// templates on the simulated nodes' node-local GPUs, and fabric pods whose devices the fabric
// driver must attach first (KEP-5007 binding conditions, the wait done by upstream's PreBind).
package conformance

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"

	"allot.dev/conformance/harness"
)

const scheduleTimeout = 120 * time.Second

// decodeManifests reads the objects of a multi-document YAML file from examples/.
func decodeManifests(t *testing.T, path string) []runtime.Object {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", path))
	if err != nil {
		t.Fatal(err)
	}
	var objs []runtime.Object
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	for {
		doc, err := reader.Read()
		if err != nil {
			break
		}
		if len(bytes.TrimSpace(doc)) == 0 || !bytes.Contains(doc, []byte("kind:")) {
			continue
		}
		obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		objs = append(objs, obj)
	}
	return objs
}

func createAll(t *testing.T, cs kubernetes.Interface, objs []runtime.Object) {
	t.Helper()
	ctx := context.Background()
	for _, obj := range objs {
		var err error
		switch o := obj.(type) {
		case *corev1.Pod:
			_, err = cs.CoreV1().Pods(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		case *resourcev1.ResourceClaimTemplate:
			_, err = cs.ResourceV1().ResourceClaimTemplates(o.Namespace).Create(ctx, o, metav1.CreateOptions{})
		default:
			t.Fatalf("unexpected object %T", obj)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// waitBound waits for a pod to be bound and returns it.
func waitBound(t *testing.T, cs kubernetes.Interface, ns, name string) *corev1.Pod {
	t.Helper()
	deadline := time.Now().Add(scheduleTimeout)
	for {
		pod, err := cs.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err == nil && pod.Spec.NodeName != "" {
			return pod
		}
		if time.Now().After(deadline) {
			t.Fatalf("pod %s/%s not bound within %s: %+v, err %v", ns, name, scheduleTimeout,
				podConditions(pod), err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func podConditions(pod *corev1.Pod) []string {
	if pod == nil {
		return nil
	}
	var out []string
	for _, c := range pod.Status.Conditions {
		out = append(out, fmt.Sprintf("%s=%s %s: %s", c.Type, c.Status, c.Reason, c.Message))
	}
	return out
}

// claimOf is the allocated claim behind a pod's claim `name`.
func claimOf(t *testing.T, cs kubernetes.Interface, pod *corev1.Pod, name string) *resourcev1.ResourceClaim {
	t.Helper()
	for _, s := range pod.Status.ResourceClaimStatuses {
		if s.Name != name || s.ResourceClaimName == nil {
			continue
		}
		claim, err := cs.ResourceV1().ResourceClaims(pod.Namespace).Get(context.Background(),
			*s.ResourceClaimName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if claim.Status.Allocation == nil || len(claim.Status.Allocation.Devices.Results) != 1 {
			t.Fatalf("claim %s of pod %s is not allocated one device: %+v", claim.Name, pod.Name,
				claim.Status.Allocation)
		}
		return claim
	}
	t.Fatalf("pod %s has no claim %q: %+v", pod.Name, name, pod.Status.ResourceClaimStatuses)
	return nil
}

// sliceNodes maps each (driver/pool) to the node its slices are on ("" for pools that are not
// node-local).
func sliceNodes(t *testing.T, cs kubernetes.Interface) map[string]string {
	t.Helper()
	slices, err := cs.ResourceV1().ResourceSlices().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, s := range slices.Items {
		node := ""
		if s.Spec.NodeName != nil {
			node = *s.Spec.NodeName
		}
		out[s.Spec.Driver+"/"+s.Spec.Pool.Name] = node
	}
	return out
}

// The lines of kube-scheduler's log that would mean Allot failed it.
var badLogLine = regexp.MustCompile(`(?i)failed to list|forbidden|failed to watch|could not find the requested resource`)

func TestKubeSchedulerSchedulesOnAllot(t *testing.T) {
	binary := harness.UpstreamBinary(t, "kube-scheduler")
	a := harness.StartAllot(t, "--demo", "--no-scheduler")
	kubeconfig := a.IssueKubeconfig(t, "system:kube-scheduler")
	sched := harness.StartProcess(t, "kube-scheduler", binary, "--kubeconfig="+kubeconfig,
		"--leader-elect=false", "--secure-port=0", "-v=2")
	cs := kubernetes.NewForConfigOrDie(a.AdminConfig(t))
	ctx := context.Background()

	// A pod without claims first.
	plain := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "plain", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, plain, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if pod := waitBound(t, cs, "default", "plain"); !strings.HasPrefix(pod.Spec.NodeName, "allot-node-") {
		t.Fatalf("plain pod bound to %q", pod.Spec.NodeName)
	}

	// Five pods of one GPU each on three nodes with one node-local GPU each and a fabric of three
	// GPUs that must be attached first. Upstream's scoring does not prefer node-local devices
	// (Allot's does), so which pod gets which is its choice; what must hold is that every pod
	// binds, no device is given twice, a node-local device only to a pod on its node, and a
	// fabric device only once the fabric driver has attached it there (its binding condition
	// true). The demo fabric fails its first attach on purpose: that pod is rescheduled.
	createAll(t, cs, decodeManifests(t, "examples/demo/00-template.yaml"))
	createAll(t, cs, decodeManifests(t, "examples/demo/01-local-pods.yaml"))
	createAll(t, cs, decodeManifests(t, "examples/demo/02-fabric-pods.yaml"))
	pools := sliceNodes(t, cs)
	given := map[string]string{}
	fabric := 0
	for _, name := range []string{"local-0", "local-1", "local-2", "fabric-0", "fabric-1"} {
		pod := waitBound(t, cs, "default", name)
		claim := claimOf(t, cs, pod, "gpu")
		result := claim.Status.Allocation.Devices.Results[0]
		device := result.Driver + "/" + result.Pool + "/" + result.Device
		if other, dup := given[device]; dup {
			t.Errorf("%s and %s were both given %s", name, other, device)
		}
		given[device] = name
		node, known := pools[result.Driver+"/"+result.Pool]
		if !known {
			t.Errorf("%s got %s, which no ResourceSlice publishes", name, device)
		}
		if node != "" {
			if node != pod.Spec.NodeName {
				t.Errorf("%s runs on %s but got %s of node %s", name, pod.Spec.NodeName, device, node)
			}
			t.Logf("%s: node %s, node-local device %s", name, pod.Spec.NodeName, device)
			continue
		}
		fabric++
		if len(result.BindingConditions) == 0 {
			t.Errorf("%s's fabric device %s has no binding conditions", name, device)
			continue
		}
		attached := false
		for _, d := range claim.Status.Devices {
			for _, c := range d.Conditions {
				if d.Device == result.Device && c.Type == result.BindingConditions[0] &&
					c.Status == metav1.ConditionTrue {
					attached = true
				}
			}
		}
		if !attached {
			t.Errorf("%s bound before %s was true on %s: %+v", name, result.BindingConditions[0],
				device, claim.Status.Devices)
		}
		t.Logf("%s: node %s, fabric device %s attached (%s)", name, pod.Spec.NodeName, device,
			result.BindingConditions[0])
	}
	if fabric < 2 {
		t.Errorf("%d pods got fabric devices; five pods and three node-local GPUs need two", fabric)
	}
	if !strings.Contains(sched.Log(), "reason=AttachFailed") {
		t.Errorf("kube-scheduler did not see the demo fabric's failed attach")
	}

	// Its events come through events.k8s.io/v1 (in protobuf) and read back as core Events.
	deadline := time.Now().Add(testTimeout)
	for {
		evs, err := cs.CoreV1().Events("default").List(ctx, metav1.ListOptions{
			FieldSelector: "involvedObject.name=plain"})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, e := range evs.Items {
			found = found || (e.Reason == "Scheduled" && e.ReportingController == "default-scheduler" &&
				strings.Contains(e.Message, "Successfully assigned default/plain"))
		}
		if found {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no Scheduled event from default-scheduler for pod plain: %+v", evs.Items)
		}
		time.Sleep(200 * time.Millisecond)
	}

	if sched.Exited() {
		t.Fatal("kube-scheduler exited")
	}
	for _, line := range strings.Split(sched.Log(), "\n") {
		if badLogLine.MatchString(line) {
			t.Errorf("kube-scheduler logged: %s", line)
		}
	}
}
