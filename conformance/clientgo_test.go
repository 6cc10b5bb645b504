// client-go 1.37 against `allot serve` over TLS: the typed clients, in JSON and in protobuf, list
// paging, watches, informers and listers, discovery, the dynamic client and leader election,
// each as a controller built on client-go uses them.
package conformance

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"allot.dev/conformance/harness"
)

const testTimeout = 60 * time.Second

func encodings(cfg *rest.Config) map[string]*rest.Config {
	jsonCfg := rest.CopyConfig(cfg)
	jsonCfg.ContentType = "application/json"
	protoCfg := rest.CopyConfig(cfg)
	protoCfg.ContentType = "application/vnd.kubernetes.protobuf"
	protoCfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	return map[string]*rest.Config{"json": jsonCfg, "protobuf": protoCfg}
}

func clientset(t *testing.T, cfg *rest.Config) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func pod(name string, podLabels map[string]string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: podLabels},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}},
		},
	}
}

func createNamespace(t *testing.T, cs kubernetes.Interface, name string) {
	t.Helper()
	ctx := context.Background()
	_, err := cs.CoreV1().Namespaces().Create(ctx,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
}

// The typed Pod client, verb by verb, in both encodings: what every controller does.
func TestTypedClientVerbs(t *testing.T) {
	allot := harness.StartAllot(t, "--no-scheduler", "--no-controllers")
	for encoding, cfg := range encodings(allot.AdminConfig(t)) {
		t.Run(encoding, func(t *testing.T) {
			ctx := context.Background()
			cs := clientset(t, cfg)
			ns := "verbs-" + encoding
			createNamespace(t, cs, ns)
			pods := cs.CoreV1().Pods(ns)

			created, err := pods.Create(ctx, pod("p1", map[string]string{"app": "a"}),
				metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			if created.UID == "" || created.ResourceVersion == "" {
				t.Fatalf("create: no uid or resourceVersion: %+v", created.ObjectMeta)
			}
			if _, err := pods.Create(ctx, pod("p1", nil), metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
				t.Fatalf("second create: want AlreadyExists, got %v", err)
			}
			got, err := pods.Get(ctx, "p1", metav1.GetOptions{})
			if err != nil || got.UID != created.UID {
				t.Fatalf("get: %v (uid %s, want %s)", err, got.UID, created.UID)
			}
			if _, err := pods.Get(ctx, "nope", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Fatalf("get of a missing pod: want NotFound, got %v", err)
			}

			got.Labels["tier"] = "web"
			updated, err := pods.Update(ctx, got, metav1.UpdateOptions{})
			if err != nil || updated.Labels["tier"] != "web" {
				t.Fatalf("update: %v %v", err, updated.Labels)
			}
			got.Labels["tier"] = "stale"
			if _, err := pods.Update(ctx, got, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
				t.Fatalf("update with a stale resourceVersion: want Conflict, got %v", err)
			}

			patches := []struct {
				pt   types.PatchType
				body string
				key  string
			}{
				{types.MergePatchType, `{"metadata":{"labels":{"merge":"yes"}}}`, "merge"},
				{types.StrategicMergePatchType, `{"metadata":{"labels":{"smp":"yes"}}}`, "smp"},
				{types.JSONPatchType, `[{"op":"add","path":"/metadata/labels/json","value":"yes"}]`, "json"},
			}
			for _, p := range patches {
				patched, err := pods.Patch(ctx, "p1", p.pt, []byte(p.body), metav1.PatchOptions{})
				if err != nil || patched.Labels[p.key] != "yes" {
					t.Fatalf("patch %s: %v %v", p.pt, err, patched.Labels)
				}
			}

			status, err := pods.Get(ctx, "p1", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			status.Status.Phase = corev1.PodRunning
			status.Labels["ignored"] = "by-status"
			afterStatus, err := pods.UpdateStatus(ctx, status, metav1.UpdateOptions{})
			if err != nil || afterStatus.Status.Phase != corev1.PodRunning {
				t.Fatalf("update status: %v %v", err, afterStatus.Status.Phase)
			}
			if _, ok := afterStatus.Labels["ignored"]; ok {
				t.Fatalf("the status subresource changed metadata.labels: %v", afterStatus.Labels)
			}

			for _, name := range []string{"p2", "p3"} {
				if _, err := pods.Create(ctx, pod(name, map[string]string{"app": "b"}), metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			selected, err := pods.List(ctx, metav1.ListOptions{LabelSelector: "app=b"})
			if err != nil || len(selected.Items) != 2 {
				t.Fatalf("list app=b: %v, %d items", err, len(selected.Items))
			}
			byField, err := pods.List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=p2"})
			if err != nil || len(byField.Items) != 1 {
				t.Fatalf("list metadata.name=p2: %v, %d items", err, len(byField.Items))
			}
			zero := int64(0)
			if err := pods.Delete(ctx, "p1", metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
				t.Fatalf("delete: %v", err)
			}
			if err := pods.DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero},
				metav1.ListOptions{LabelSelector: "app=b"}); err != nil {
				t.Fatalf("deletecollection: %v", err)
			}
			left, err := pods.List(ctx, metav1.ListOptions{})
			if err != nil || len(left.Items) != 0 {
				t.Fatalf("after the deletes: %v, %d pods left", err, len(left.Items))
			}
		})
	}
}

// limit/continue as client-go's pager and every reflector's first list use them.
func TestListPaging(t *testing.T) {
	allot := harness.StartAllot(t, "--no-scheduler", "--no-controllers")
	ctx := context.Background()
	cs := clientset(t, allot.AdminConfig(t))
	createNamespace(t, cs, "paging")
	const n = 11
	for i := 0; i < n; i++ {
		if _, err := cs.CoreV1().Pods("paging").Create(ctx, pod(fmt.Sprintf("p%02d", i), nil), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	opts := metav1.ListOptions{Limit: 4}
	pages := 0
	for {
		page, err := cs.CoreV1().Pods("paging").List(ctx, opts)
		if err != nil {
			t.Fatalf("page %d: %v", pages, err)
		}
		pages++
		if len(page.Items) > 4 {
			t.Fatalf("page %d holds %d items, over the limit of 4", pages, len(page.Items))
		}
		for _, p := range page.Items {
			names = append(names, p.Name)
		}
		if page.Continue == "" {
			break
		}
		if page.RemainingItemCount == nil || *page.RemainingItemCount <= 0 {
			t.Fatalf("page %d: a continue token without remainingItemCount", pages)
		}
		opts.Continue = page.Continue
	}
	if pages != 3 || len(names) != n || !sort.StringsAreSorted(names) {
		t.Fatalf("%d pages, names %v", pages, names)
	}
	if _, err := cs.CoreV1().Pods("paging").List(ctx, metav1.ListOptions{Limit: 4, Continue: "not-a-token"}); !apierrors.IsBadRequest(err) {
		t.Fatalf("a malformed continue token: want BadRequest, got %v", err)
	}
}

// A watch from a list's resourceVersion sees exactly what came after it, in order.
func TestWatchFromResourceVersion(t *testing.T) {
	allot := harness.StartAllot(t, "--no-scheduler", "--no-controllers")
	for encoding, cfg := range encodings(allot.AdminConfig(t)) {
		t.Run(encoding, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
			defer cancel()
			cs := clientset(t, cfg)
			ns := "watch-" + encoding
			createNamespace(t, cs, ns)
			pods := cs.CoreV1().Pods(ns)
			if _, err := pods.Create(ctx, pod("before", nil), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			list, err := pods.List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			w, err := pods.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion,
				AllowWatchBookmarks: true})
			if err != nil {
				t.Fatalf("watch: %v", err)
			}
			defer w.Stop()
			if _, err := pods.Create(ctx, pod("after", nil), metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			if _, err := pods.Patch(ctx, "after", types.MergePatchType,
				[]byte(`{"metadata":{"labels":{"x":"y"}}}`), metav1.PatchOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := pods.Delete(ctx, "after", metav1.DeleteOptions{}); err != nil {
				t.Fatal(err)
			}
			want := []watch.EventType{watch.Added, watch.Modified, watch.Deleted}
			var got []watch.EventType
			for len(got) < len(want) {
				select {
				case ev, ok := <-w.ResultChan():
					if !ok {
						t.Fatalf("the watch ended after %v", got)
					}
					if ev.Type == watch.Bookmark {
						continue
					}
					p, isPod := ev.Object.(*corev1.Pod)
					if !isPod {
						t.Fatalf("event %s holds %T", ev.Type, ev.Object)
					}
					if p.Name != "after" {
						t.Fatalf("event %s for %s: the watch replayed what its resourceVersion covers", ev.Type, p.Name)
					}
					got = append(got, ev.Type)
				case <-ctx.Done():
					t.Fatalf("events so far %v: %v", got, ctx.Err())
				}
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("events %v, want %v", got, want)
				}
			}
		})
	}
}

// A shared informer factory syncs and its listers follow the store, as in every controller.
func TestInformersAndListers(t *testing.T) {
	allot := harness.StartAllot(t, "--no-scheduler", "--no-controllers")
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	cs := clientset(t, allot.AdminConfig(t))
	createNamespace(t, cs, "informers")
	if _, err := cs.CoreV1().Pods("informers").Create(ctx, pod("existing", map[string]string{"app": "a"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	factory := informers.NewSharedInformerFactory(cs, 0)
	podLister := factory.Core().V1().Pods().Lister()
	nsLister := factory.Core().V1().Namespaces().Lister()
	stop := make(chan struct{})
	factory.Start(stop)
	defer factory.Shutdown() // waits for the informers, which end once stop is closed
	defer close(stop)
	for typ, synced := range factory.WaitForCacheSync(ctx.Done()) {
		if !synced {
			t.Fatalf("the %v informer did not sync", typ)
		}
	}
	if _, err := nsLister.Get("informers"); err != nil {
		t.Fatalf("namespace lister: %v", err)
	}
	if _, err := podLister.Pods("informers").Get("existing"); err != nil {
		t.Fatalf("pod lister after the sync: %v", err)
	}
	if _, err := cs.CoreV1().Pods("informers").Create(ctx, pod("later", map[string]string{"app": "a"}), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for {
		selected, err := podLister.Pods("informers").List(labels.SelectorFromSet(labels.Set{"app": "a"}))
		if err != nil {
			t.Fatal(err)
		}
		if len(selected) == 2 {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the lister holds %d pods with app=a, want 2", len(selected))
		case <-time.After(20 * time.Millisecond):
		}
	}
	if !cache.WaitForCacheSync(ctx.Done(), factory.Core().V1().Pods().Informer().HasSynced) {
		t.Fatal("HasSynced went false")
	}
}

// Discovery as kubectl and the dynamic client's RESTMapper read it, then the dynamic client on
// Allot's custom kind.
func TestDiscoveryAndDynamicClient(t *testing.T) {
	allot := harness.StartAllot(t, "--no-scheduler", "--no-controllers")
	cfg := allot.AdminConfig(t)
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	version, err := dc.ServerVersion()
	if err != nil {
		t.Fatalf("server version: %v", err)
	}
	if version.Major != "1" || version.Minor != "37" {
		t.Errorf("server version %+v: want 1.37, the release Allot follows", version)
	}
	_, resources, err := dc.ServerGroupsAndResources()
	if err != nil {
		t.Fatalf("groups and resources: %v", err)
	}
	served := map[string]bool{}
	for _, list := range resources {
		for _, r := range list.APIResources {
			served[list.GroupVersion+"/"+r.Name] = true
		}
	}
	for _, want := range []string{"v1/pods", "v1/pods/status", "v1/nodes", "v1/namespaces",
		"resource.k8s.io/v1/resourceclaims", "resource.k8s.io/v1/resourceslices",
		"resource.k8s.io/v1/deviceclasses", "coordination.k8s.io/v1/leases",
		"scheduling.koordinator.sh/v1alpha1/reservations"} {
		if !served[want] {
			t.Errorf("discovery does not list %s", want)
		}
	}

	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	gvr := schema.GroupVersionResource{Group: "scheduling.koordinator.sh", Version: "v1alpha1", Resource: "reservations"}
	rsv := &unstructured.Unstructured{Object: map[string]interface{}{
		"apiVersion": "scheduling.koordinator.sh/v1alpha1",
		"kind":       "Reservation",
		"metadata":   map[string]interface{}{"name": "r1"},
		"spec": map[string]interface{}{
			"template": map[string]interface{}{
				"spec": map[string]interface{}{
					"containers": []interface{}{map[string]interface{}{
						"name": "c", "image": "registry.k8s.io/pause:3.10",
						"resources": map[string]interface{}{"requests": map[string]interface{}{"cpu": "1"}},
					}},
				},
			},
			"owners": []interface{}{map[string]interface{}{
				"labelSelector": map[string]interface{}{"matchLabels": map[string]interface{}{"app": "a"}},
			}},
			"ttl": "1h",
		},
	}}
	created, err := dyn.Resource(gvr).Create(ctx, rsv, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("dynamic create: %v", err)
	}
	if created.GetUID() == "" {
		t.Fatal("dynamic create: no uid")
	}
	list, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("dynamic list: %v (%d items)", err, len(list.Items))
	}
}

// client-go's own leader elector on a Lease: one candidate leads, and the Lease names it.
func TestLeaderElectionOnLeases(t *testing.T) {
	allot := harness.StartAllot(t, "--no-scheduler", "--no-controllers")
	cs := clientset(t, allot.AdminConfig(t))
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: "kube-system", Name: "conformance-elector"},
		Client:     cs.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: "candidate-1"},
	}
	led := make(chan struct{})
	elector, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   15 * time.Second,
		RenewDeadline:   10 * time.Second,
		RetryPeriod:     2 * time.Second,
		ReleaseOnCancel: true,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(context.Context) { close(led) },
			OnStoppedLeading: func() {},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { elector.Run(runCtx); close(done) }()
	select {
	case <-led:
	case <-ctx.Done():
		t.Fatal("candidate-1 never led")
	}
	var lease *coordinationv1.Lease
	lease, err = cs.CoordinationV1().Leases("kube-system").Get(ctx, "conformance-elector", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity != "candidate-1" {
		t.Fatalf("lease holder %v, want candidate-1", lease.Spec.HolderIdentity)
	}
	stop()
	<-done
}
