// Bad input, judged by the real kube-apiserver: each invalid object goes to kube-apiserver 1.37
// (on its own etcd) and to Allot, and both must answer with the same HTTP code, the same
// reason and the same causes (reason and field path). Messages are compared too; where they
// differ the test says how.
package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"allot.dev/conformance/harness"
)

type invalidCase struct {
	name string
	path string // the collection the object is posted to
	body string
}

var invalidObjects = []invalidCase{
	{"configmap bad key", "/api/v1/namespaces/default/configmaps",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c1"},"data":{"bad key!":"x"}}`},
	{"configmap bad name", "/api/v1/namespaces/default/configmaps",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"Not_A_Name"}}`},
	{"secret tls without keys", "/api/v1/namespaces/default/secrets",
		`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s1"},"type":"kubernetes.io/tls","data":{}}`},
	{"service bad port", "/api/v1/namespaces/default/services",
		`{"apiVersion":"v1","kind":"Service","metadata":{"name":"svc"},"spec":{"ports":[{"port":70000}]}}`},
	{"service without ports", "/api/v1/namespaces/default/services",
		`{"apiVersion":"v1","kind":"Service","metadata":{"name":"svc"},"spec":{"type":"ClusterIP"}}`},
	{"pvc without access modes", "/api/v1/namespaces/default/persistentvolumeclaims",
		`{"apiVersion":"v1","kind":"PersistentVolumeClaim","metadata":{"name":"pvc"},"spec":{"resources":{"requests":{"storage":"1Gi"}}}}`},
	{"pv without capacity", "/api/v1/persistentvolumes",
		`{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"pv"},"spec":{"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/tmp"}}}`},
	{"pod without containers", "/api/v1/namespaces/default/pods",
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[]}}`},
	{"pod bad restart policy", "/api/v1/namespaces/default/pods",
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"restartPolicy":"Sometimes","containers":[{"name":"c","image":"x"}]}}`},
	{"replicaset selector mismatch", "/apis/apps/v1/namespaces/default/replicasets",
		`{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"rs"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"c"}},"spec":{"containers":[{"name":"c","image":"x"}]}}}}`},
	{"storageclass bad provisioner", "/apis/storage.k8s.io/v1/storageclasses",
		`{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"sc"},"provisioner":"not a provisioner!"}`},
	{"deviceclass bad selector", "/apis/resource.k8s.io/v1/deviceclasses",
		`{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"dc"},"spec":{"selectors":[{"cel":{"expression":"device.driver =="}}]}}`},
	{"resourceclaim without requests' class", "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims",
		`{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"rc"},"spec":{"devices":{"requests":[{"name":"gpu","exactly":{}}]}}}`},
	{"resourceslice without pool", "/apis/resource.k8s.io/v1/resourceslices",
		`{"apiVersion":"resource.k8s.io/v1","kind":"ResourceSlice","metadata":{"name":"rs"},"spec":{"driver":"d.example.com","allNodes":true,"pool":{"name":"","resourceSliceCount":1}}}`},
	{"devicetaintrule bad effect", "/apis/resource.k8s.io/v1/devicetaintrules",
		`{"apiVersion":"resource.k8s.io/v1","kind":"DeviceTaintRule","metadata":{"name":"t"},"spec":{"taint":{"key":"k","effect":"Sometimes"}}}`},
	{"v1beta1 claim without class", "/apis/resource.k8s.io/v1beta1/namespaces/default/resourceclaims",
		`{"apiVersion":"resource.k8s.io/v1beta1","kind":"ResourceClaim","metadata":{"name":"rc"},"spec":{"devices":{"requests":[{"name":"gpu"}]}}}`},
	{"lease negative duration", "/apis/coordination.k8s.io/v1/namespaces/default/leases",
		`{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"l"},"spec":{"leaseDurationSeconds":-1}}`},
	{"malformed json", "/api/v1/namespaces/default/configmaps", `{"apiVersion":"v1","kind":"ConfigMap",`},
	{"json with a stray value", "/api/v1/namespaces/default/configmaps", `{"apiVersion":"v1","kind" "ConfigMap"}`},
	{"not json at all", "/api/v1/namespaces/default/configmaps", `nope`},
	{"wrong kind for the path", "/api/v1/namespaces/default/configmaps",
		`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"x"}}`},
}

type answer struct {
	code    int32
	reason  metav1.StatusReason
	causes  []string // "reason field", sorted
	message string
}

func post(t *testing.T, cs kubernetes.Interface, c invalidCase) answer {
	t.Helper()
	err := cs.CoreV1().RESTClient().Post().AbsPath(c.path).SetHeader("Content-Type", "application/json").
		Body([]byte(c.body)).Do(context.Background()).Error()
	if err == nil {
		return answer{code: 201}
	}
	st, ok := err.(apierrors.APIStatus)
	if !ok {
		t.Fatalf("%s: not an API status: %v", c.name, err)
	}
	s := st.Status()
	a := answer{code: s.Code, reason: s.Reason, message: s.Message}
	if s.Details != nil {
		for _, cause := range s.Details.Causes {
			a.causes = append(a.causes, fmt.Sprintf("%s %s", cause.Type, cause.Field))
		}
	}
	sort.Strings(a.causes)
	return a
}

func TestInvalidObjectsAnswerAsKubeAPIServer(t *testing.T) {
	upstream := harness.StartKubeAPIServer(t)
	allot := harness.StartAllot(t, "--store", "memory", "--no-scheduler", "--no-controllers")
	kube := clientset(t, upstream.Config())
	ours := clientset(t, allot.AdminConfig(t))
	// Without kube-controller-manager nobody makes the default ServiceAccount, which
	// kube-apiserver's ServiceAccount admission wants before it judges a pod.
	_, err := kube.CoreV1().ServiceAccounts("default").Create(context.Background(),
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var messageDiffs []string
	for _, c := range invalidObjects {
		want, got := post(t, kube, c), post(t, ours, c)
		if want.code < 400 {
			t.Errorf("%s: kube-apiserver accepted it (%d): not a case of bad input", c.name, want.code)
			continue
		}
		wj, _ := json.Marshal(want.causes)
		gj, _ := json.Marshal(got.causes)
		if want.code != got.code || want.reason != got.reason || string(wj) != string(gj) {
			t.Errorf("%s:\n  kube-apiserver: %d %s %s\n                  %q\n  allot:          %d %s %s\n                  %q",
				c.name, want.code, want.reason, wj, want.message, got.code, got.reason, gj, got.message)
			continue
		}
		if want.message != got.message {
			messageDiffs = append(messageDiffs, fmt.Sprintf("%s:\n  kube-apiserver: %q\n  allot:          %q",
				c.name, want.message, got.message))
		}
	}
	if len(messageDiffs) > 0 {
		t.Errorf("same code, reason and causes; messages differ:\n%s", strings.Join(messageDiffs, "\n"))
	}
}
