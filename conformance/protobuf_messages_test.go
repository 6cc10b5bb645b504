// What Allot keeps as JSON text (probes, lifecycle hooks, security contexts, env sources, DNS
// config, the volume sources of pods and PersistentVolumes) travels in protobuf as the messages
// k8s.io/api generates (src/api/codec/opaque_messages.h). Judged twice: what client-go sends in
// protobuf comes back the same in protobuf, and it reads, in protobuf and in JSON, as the real
// kube-apiserver gives it back.
package conformance

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/rest"

	"allot.dev/conformance/harness"
)

// Only protobuf, both ways: a server that answered in JSON would fail the request.
func protobufOnly(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.ContentType = "application/vnd.kubernetes.protobuf"
	c.AcceptContentTypes = "application/vnd.kubernetes.protobuf"
	return c
}

func jsonOnly(cfg *rest.Config) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.ContentType = "application/json"
	c.AcceptContentTypes = "application/json"
	return c
}

// A pod whose every opaque part is set, with the values kube-apiserver would default already
// there, so that what comes back can be compared with what went.
func podWithEverything(name string) *corev1.Pod {
	probe := func(h corev1.ProbeHandler) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: h, InitialDelaySeconds: 3, TimeoutSeconds: 1,
			PeriodSeconds: 10, SuccessThreshold: 1, FailureThreshold: 3}
	}
	mode := int32(0o644)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{
			AutomountServiceAccountToken: ptrTo(false),
			Containers: []corev1.Container{{
				Name: "c", Image: "registry.k8s.io/pause:3.10",
				LivenessProbe: probe(corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
					Path: "/healthz", Port: intstr.FromInt32(8080), Scheme: corev1.URISchemeHTTP,
					HTTPHeaders: []corev1.HTTPHeader{{Name: "X-Probe", Value: "1"}}}}),
				ReadinessProbe: probe(corev1.ProbeHandler{Exec: &corev1.ExecAction{
					Command: []string{"cat", "/ready"}}}),
				StartupProbe: probe(corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{
					Port: intstr.FromString("http")}}),
				Lifecycle: &corev1.Lifecycle{PreStop: &corev1.LifecycleHandler{
					Sleep: &corev1.SleepAction{Seconds: 5}}},
				SecurityContext: &corev1.SecurityContext{RunAsUser: ptrTo(int64(0)),
					Privileged:   ptrTo(false),
					Capabilities: &corev1.Capabilities{Add: []corev1.Capability{"NET_ADMIN"}}},
				Env: []corev1.EnvVar{{Name: "NODE", ValueFrom: &corev1.EnvVarSource{
					FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "spec.nodeName"}}}},
				EnvFrom: []corev1.EnvFromSource{{Prefix: "CM_", ConfigMapRef: &corev1.ConfigMapEnvSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}}}},
			}},
			SecurityContext: &corev1.PodSecurityContext{FSGroup: ptrTo(int64(2000)),
				Sysctls: []corev1.Sysctl{{Name: "net.ipv4.ip_forward", Value: "1"}}},
			DNSPolicy: corev1.DNSNone,
			DNSConfig: &corev1.PodDNSConfig{Nameservers: []string{"10.0.0.10"},
				Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: ptrTo("2")}}},
			Volumes: []corev1.Volume{
				{Name: "scratch", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
					Medium: corev1.StorageMediumMemory, SizeLimit: ptrTo(resource.MustParse("1Gi"))}}},
				{Name: "settings", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: "settings"},
					Items:                []corev1.KeyToPath{{Key: "k", Path: "p"}}, DefaultMode: &mode}}},
				{Name: "token", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
					DefaultMode: &mode, Sources: []corev1.VolumeProjection{{
						ServiceAccountToken: &corev1.ServiceAccountTokenProjection{
							ExpirationSeconds: ptrTo(int64(3607)), Path: "token"}}}}}},
				{Name: "data", VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{
					Driver: "csi.example.com", VolumeAttributes: map[string]string{"z": "1", "a": "2"}}}},
				{Name: "scratch-claim", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
					VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{
						ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "a"}},
						Spec: corev1.PersistentVolumeClaimSpec{
							AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
							// Both servers default it (TestDefaultsInsideMessagesAllotKeepsAsJSON);
							// set, it comes back as sent.
							VolumeMode: ptrTo(corev1.PersistentVolumeFilesystem),
							Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
								corev1.ResourceStorage: resource.MustParse("1Gi")}}}}}}},
			},
		},
	}
}

func pvWithSource(name string) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
			VolumeMode:                    ptrTo(corev1.PersistentVolumeFilesystem),
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{
				Driver: "csi.example.com", VolumeHandle: "vol-1", FSType: "ext4",
				VolumeAttributes:     map[string]string{"tier": "fast"},
				NodePublishSecretRef: &corev1.SecretReference{Name: "creds", Namespace: "default"}}},
		},
	}
}

// The parts of a pod that Allot keeps as JSON text.
func opaqueParts(p *corev1.Pod) map[string]any {
	c := p.Spec.Containers[0]
	return map[string]any{
		"volumes": p.Spec.Volumes, "securityContext": p.Spec.SecurityContext,
		"dnsConfig": p.Spec.DNSConfig, "livenessProbe": c.LivenessProbe,
		"readinessProbe": c.ReadinessProbe, "startupProbe": c.StartupProbe,
		"lifecycle": c.Lifecycle, "containerSecurityContext": c.SecurityContext,
		"env": c.Env, "envFrom": c.EnvFrom,
	}
}

func TestMessagesAllotKeepsAsJSONTravelInProtobuf(t *testing.T) {
	allot := harness.StartAllot(t)
	ctx := context.Background()
	proto := clientset(t, protobufOnly(allot.AdminConfig(t)))
	sent := podWithEverything("everything")
	created, err := proto.CoreV1().Pods("default").Create(ctx, sent, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating a pod in protobuf: %v", err)
	}
	got, err := proto.CoreV1().Pods("default").Get(ctx, created.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("reading it in protobuf: %v", err)
	}
	want := opaqueParts(sent)
	for k, v := range opaqueParts(got) {
		if !reflect.DeepEqual(v, want[k]) {
			a, _ := json.Marshal(v)
			b, _ := json.Marshal(want[k])
			t.Errorf("%s came back as\n  %s\nnot\n  %s", k, a, b)
		}
	}
	pv, err := proto.CoreV1().PersistentVolumes().Create(ctx, pvWithSource("fast"), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("creating a PersistentVolume in protobuf: %v", err)
	}
	pv, err = proto.CoreV1().PersistentVolumes().Get(ctx, pv.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(pv.Spec.PersistentVolumeSource, pvWithSource("").Spec.PersistentVolumeSource) {
		t.Errorf("the PersistentVolume's source came back as %+v", pv.Spec.PersistentVolumeSource.CSI)
	}
}

// The same objects sent in protobuf to kube-apiserver and to Allot read back the same, in JSON
// (what kubectl and every JSON client see) and in protobuf.
func TestMessagesAllotKeepsAsJSONReadAsKubeAPIServerGivesThem(t *testing.T) {
	upstream := harness.StartKubeAPIServer(t)
	allot := harness.StartAllot(t)
	ctx := context.Background()
	servers := map[string]*rest.Config{"kube-apiserver": upstream.Config(), "allot": allot.AdminConfig(t)}
	podJSON := map[string]map[string]any{}
	pvJSON := map[string]map[string]any{}
	// Without kube-controller-manager nobody makes the default ServiceAccount, which
	// kube-apiserver's ServiceAccount admission wants before it admits a pod.
	if _, err := clientset(t, upstream.Config()).CoreV1().ServiceAccounts("default").Create(ctx,
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}},
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, cfg := range servers {
		proto := clientset(t, protobufOnly(cfg))
		if _, err := proto.CoreV1().Pods("default").Create(ctx, podWithEverything("everything"),
			metav1.CreateOptions{}); err != nil {
			t.Fatalf("%s: creating the pod: %v", name, err)
		}
		if _, err := proto.CoreV1().PersistentVolumes().Create(ctx, pvWithSource("fast"),
			metav1.CreateOptions{}); err != nil {
			t.Fatalf("%s: creating the PersistentVolume: %v", name, err)
		}
		podJSON[name] = getJSON(t, cfg, "/api/v1/namespaces/default/pods/everything")
		pvJSON[name] = getJSON(t, cfg, "/api/v1/persistentvolumes/fast")
	}
	spec := func(o map[string]any) map[string]any { return o["spec"].(map[string]any) }
	for _, key := range []string{"volumes", "securityContext", "dnsConfig"} {
		compareJSON(t, "pod spec."+key, spec(podJSON["allot"])[key], spec(podJSON["kube-apiserver"])[key])
	}
	container := func(o map[string]any) map[string]any {
		return spec(o)["containers"].([]any)[0].(map[string]any)
	}
	for _, key := range []string{"livenessProbe", "readinessProbe", "startupProbe", "lifecycle",
		"securityContext", "env", "envFrom"} {
		compareJSON(t, "container "+key, container(podJSON["allot"])[key], container(podJSON["kube-apiserver"])[key])
	}
	compareJSON(t, "PersistentVolume csi", spec(pvJSON["allot"])["csi"], spec(pvJSON["kube-apiserver"])["csi"])
}

func compareJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(want)
		t.Errorf("%s: Allot gives\n  %s\nkube-apiserver gives\n  %s", what, a, b)
	}
}

// The catalog in the repository is what conformance/cmd/protocatalog prints for the k8s.io/api
// this module pins.
func TestOpaqueMessageCatalogIsCurrent(t *testing.T) {
	out, err := exec.Command("go", "run", "./cmd/protocatalog").Output()
	if err != nil {
		t.Fatalf("go run ./cmd/protocatalog: %v", err)
	}
	path := filepath.Join("..", "src", "api", "codec", "opaque_messages", "k8s_api.tsv")
	have, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(have) != string(out) {
		t.Errorf("%s is not what conformance/cmd/protocatalog prints: run\n"+
			"  (cd conformance && go run ./cmd/protocatalog > ../%s)", path, filepath.ToSlash(path)[3:])
	}
}
