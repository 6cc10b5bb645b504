// A real cluster in the harness: kube-apiserver 1.37 with kube-controller-manager 1.37 beside
// it, each component signing in as its own role (issue 41's ground: Allot's scheduler, drivers
// and reservations then run against it).
package conformance

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"allot.dev/conformance/harness"
)

// kube-controller-manager's resourceclaim controller makes a pod's claim from its template, as
// in any 1.37 cluster; its serviceaccount controller makes the namespace's default account.
func TestKubeControllerManagerMakesClaimsFromTemplates(t *testing.T) {
	k := harness.StartKubeAPIServer(t)
	kcm := k.StartKubeControllerManager(t)
	cs := clientset(t, k.Config())
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	poll := func(what string, done func() (bool, error)) {
		t.Helper()
		if err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true,
			func(context.Context) (bool, error) {
				if kcm.Exited() {
					t.Fatal("kube-controller-manager ended")
				}
				return done()
			}); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	poll("the default service account", func() (bool, error) {
		_, err := cs.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
		return err == nil, ignoreNotFound(err)
	})
	if _, err := cs.ResourceV1().DeviceClasses().Create(ctx, &resourcev1.DeviceClass{
		ObjectMeta: metav1.ObjectMeta{Name: "gpu.example.com"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	template := &resourcev1.ResourceClaimTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: "one-gpu", Namespace: "default"},
		Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{
			Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "gpu",
				Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu.example.com"}}}}}},
	}
	if _, err := cs.ResourceV1().ResourceClaimTemplates("default").Create(ctx, template,
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "trainer", Namespace: "default"},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10",
				Resources: corev1.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: "gpu"}}}}},
			ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptrTo("one-gpu")}},
		},
	}
	created, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var claimName string
	poll("the pod's claim", func() (bool, error) {
		p, err := cs.CoreV1().Pods("default").Get(ctx, "trainer", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, s := range p.Status.ResourceClaimStatuses {
			if s.Name == "gpu" && s.ResourceClaimName != nil {
				claimName = *s.ResourceClaimName
				return true, nil
			}
		}
		return false, nil
	})
	claim, err := cs.ResourceV1().ResourceClaims("default").Get(ctx, claimName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	owner := metav1.GetControllerOf(claim)
	if owner == nil || owner.UID != created.UID || claim.Annotations["resource.kubernetes.io/pod-claim-name"] != "gpu" {
		t.Errorf("claim %s: owner %+v, annotations %v", claim.Name, owner, claim.Annotations)
	}
	if r := claim.Spec.Devices.Requests; len(r) != 1 || r[0].Exactly == nil || r[0].Exactly.DeviceClassName != "gpu.example.com" {
		t.Errorf("claim %s made from the template: %+v", claim.Name, claim.Spec.Devices)
	}
}

func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}
