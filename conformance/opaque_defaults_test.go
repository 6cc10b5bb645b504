// The defaults kube-apiserver gives inside the parts Allot keeps as JSON text (a probe's
// periods and thresholds, an HTTP action's path and scheme, a volume's defaultMode, ...), judged
// by the real kube-apiserver: objects that leave them out, sent in JSON and in protobuf to both
// servers, read back in JSON the same.
package conformance

import (
	"context"
	"encoding/json"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/rest"

	"allot.dev/conformance/harness"
)

// A pod spec whose probes, hooks, env sources and volumes leave out everything that has a
// default.
func specWithoutDefaults() corev1.PodSpec {
	return corev1.PodSpec{
		AutomountServiceAccountToken: ptrTo(false),
		Containers: []corev1.Container{{
			Name: "c", Image: "registry.k8s.io/pause:3.10",
			LivenessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
				HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(8080)}}},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
				GRPC: &corev1.GRPCAction{Port: 9000}}, PeriodSeconds: 4},
			StartupProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
				TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromString("http")}}},
			Lifecycle: &corev1.Lifecycle{PostStart: &corev1.LifecycleHandler{
				HTTPGet: &corev1.HTTPGetAction{Port: intstr.FromInt32(80), Host: "localhost"}}},
			Env: []corev1.EnvVar{{Name: "NODE", ValueFrom: &corev1.EnvVarSource{
				FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"}}}},
		}},
		Volumes: []corev1.Volume{
			{Name: "secret", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
				SecretName: "s"}}},
			{Name: "settings", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}}}},
			{Name: "labels", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
				Items: []corev1.DownwardAPIVolumeFile{{Path: "labels",
					FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.labels"}}}}}},
			{Name: "token", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
				Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{
					Path: "token"}}}}}},
			{Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{
				Path: "/var/lib/data"}}},
			{Name: "model", VolumeSource: corev1.VolumeSource{Image: &corev1.ImageVolumeSource{
				Reference: "registry.example.com/model:v1"}}},
			{Name: "weights", VolumeSource: corev1.VolumeSource{Image: &corev1.ImageVolumeSource{
				Reference: "registry.example.com/weights"}}},
			{Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
				VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{
					Spec: corev1.PersistentVolumeClaimSpec{
						AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
						Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceStorage: resource.MustParse("1Gi")}}}}}}},
		},
	}
}

func TestDefaultsInsideMessagesAllotKeepsAsJSON(t *testing.T) {
	upstream := harness.StartKubeAPIServer(t)
	allot := harness.StartAllot(t)
	ctx := context.Background()
	servers := map[string]*rest.Config{"kube-apiserver": upstream.Config(), "allot": allot.AdminConfig(t)}
	if _, err := clientset(t, upstream.Config()).CoreV1().ServiceAccounts("default").Create(ctx,
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}},
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	encodings := map[string]func(*rest.Config) *rest.Config{"json": jsonOnly, "protobuf": protobufOnly}
	read := map[string]map[string]any{} // by server, then by object
	for server, cfg := range servers {
		read[server] = map[string]any{}
		for enc, as := range encodings {
			c := clientset(t, as(cfg))
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pod-" + enc}, Spec: specWithoutDefaults()}
			if _, err := c.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
				t.Fatalf("%s: creating a pod in %s: %v", server, enc, err)
			}
			labels := map[string]string{"app": "rs-" + enc}
			rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "rs-" + enc},
				Spec: appsv1.ReplicaSetSpec{Replicas: ptrTo(int32(0)),
					Selector: &metav1.LabelSelector{MatchLabels: labels},
					Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
						Spec: specWithoutDefaults()}}}
			if _, err := c.AppsV1().ReplicaSets("default").Create(ctx, rs, metav1.CreateOptions{}); err != nil {
				t.Fatalf("%s: creating a ReplicaSet in %s: %v", server, enc, err)
			}
			pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "rbd-" + enc},
				Spec: corev1.PersistentVolumeSpec{
					Capacity:    corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
					AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					PersistentVolumeSource: corev1.PersistentVolumeSource{RBD: &corev1.RBDPersistentVolumeSource{
						CephMonitors: []string{"10.0.0.1:6789"}, RBDImage: "img"}}}}
			if _, err := c.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
				t.Fatalf("%s: creating a PersistentVolume in %s: %v", server, enc, err)
			}
			raw := func(path string) map[string]any { return getJSON(t, cfg, path) }
			spec := func(o map[string]any) map[string]any { return o["spec"].(map[string]any) }
			read[server]["pod sent in "+enc] = podParts(spec(raw("/api/v1/namespaces/default/pods/pod-" + enc)))
			rsSpec := spec(raw("/apis/apps/v1/namespaces/default/replicasets/rs-" + enc))
			read[server]["ReplicaSet template sent in "+enc] = podParts(spec(rsSpec["template"].(map[string]any)))
			read[server]["PersistentVolume sent in "+enc] = spec(raw("/api/v1/persistentvolumes/rbd-" + enc))["rbd"]
		}
	}
	for what, want := range read["kube-apiserver"] {
		compareJSON(t, what, read["allot"][what], want)
	}
	// Not vacuous: kube-apiserver did default them.
	probe := read["kube-apiserver"]["pod sent in json"].(map[string]any)["livenessProbe"].(map[string]any)
	if probe["periodSeconds"] != float64(10) || probe["httpGet"].(map[string]any)["scheme"] != "HTTP" {
		t.Errorf("kube-apiserver gave the probe %v", probe)
	}
}

// GET path in JSON, decoded.
func getJSON(t *testing.T, cfg *rest.Config, path string) map[string]any {
	t.Helper()
	body, err := clientset(t, jsonOnly(cfg)).CoreV1().RESTClient().Get().AbsPath(path).
		DoRaw(context.Background())
	if err != nil {
		t.Fatalf("%s: GET %s: %v", cfg.Host, path, err)
	}
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

// The parts of a pod spec kept as JSON text, as JSON.
func podParts(spec map[string]any) map[string]any {
	c := spec["containers"].([]any)[0].(map[string]any)
	out := map[string]any{"volumes": spec["volumes"]}
	for _, k := range []string{"livenessProbe", "readinessProbe", "startupProbe", "lifecycle", "env"} {
		out[k] = c[k]
	}
	return out
}
