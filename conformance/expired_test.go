// What client-go does when Allot's history has moved on (`allot serve --watch-history`, as
// kube-apiserver after etcd compacted): 410 Gone for an expired continue token, with a fresh
// token that finishes the list; 410 for a watch from a resourceVersion too old; and an informer
// whose watch gets that 410 lists again and stays in sync.
package conformance

import (
	"context"
	"fmt"
	"sort"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"allot.dev/conformance/harness"
)

const history = 20

// churn writes `n` changes to a scratch ConfigMap, pushing older changes out of the history.
func churn(t *testing.T, cs kubernetes.Interface, ns string, n int) {
	t.Helper()
	ctx := context.Background()
	cms := cs.CoreV1().ConfigMaps(ns)
	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "churn-"}},
		metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		cm.Data = map[string]string{"i": fmt.Sprint(i)}
		if cm, err = cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestExpiredContinueTokenAndWatch(t *testing.T) {
	allot := harness.StartAllot(t, "--no-scheduler", "--no-controllers", "--store", "memory",
		"--watch-history", fmt.Sprint(history))
	ctx := context.Background()
	cs := clientset(t, allot.AdminConfig(t))
	createNamespace(t, cs, "expired")
	pods := cs.CoreV1().Pods("expired")
	for i := 0; i < 6; i++ {
		if _, err := pods.Create(ctx, pod(fmt.Sprintf("p%d", i), nil), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	first, err := pods.List(ctx, metav1.ListOptions{Limit: 2})
	if err != nil || first.Continue == "" {
		t.Fatalf("first page: %v (continue %q)", err, first.Continue)
	}
	churn(t, cs, "expired", 2*history)

	_, err = pods.List(ctx, metav1.ListOptions{Limit: 2, Continue: first.Continue})
	if !apierrors.IsResourceExpired(err) {
		t.Fatalf("an expired continue token: want 410 Expired, got %v", err)
	}
	status := err.(apierrors.APIStatus).Status()
	if status.Code != 410 || status.ListMeta.Continue == "" {
		t.Fatalf("410 without a fresh continue token: %+v", status)
	}
	// The fresh token finishes the list after where the first page stopped.
	names := []string{first.Items[0].Name, first.Items[1].Name}
	opts := metav1.ListOptions{Limit: 2, Continue: status.ListMeta.Continue}
	for {
		page, err := pods.List(ctx, opts)
		if err != nil {
			t.Fatalf("continuing with the fresh token: %v", err)
		}
		for _, p := range page.Items {
			names = append(names, p.Name)
		}
		if page.Continue == "" {
			break
		}
		opts.Continue = page.Continue
	}
	if len(names) != 6 || !sort.StringsAreSorted(names) {
		t.Fatalf("names %v", names)
	}

	// A watch from the first page's resourceVersion, gone from the history: an ERROR event
	// with a 410 Status, as kube-apiserver sends it.
	w, err := pods.Watch(ctx, metav1.ListOptions{ResourceVersion: first.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	select {
	case ev := <-w.ResultChan():
		if ev.Type != watch.Error {
			t.Fatalf("want an ERROR event, got %s", ev.Type)
		}
		if st := apierrors.FromObject(ev.Object); !apierrors.IsResourceExpired(st) && !apierrors.IsGone(st) {
			t.Fatalf("want 410, got %v", st)
		}
	case <-time.After(testTimeout):
		t.Fatal("no event on a watch from a too-old resourceVersion")
	}
}

// An informer whose first request names a resourceVersion already out of the history (as one
// that listed before a long disconnection): its watch gets 410, the reflector starts over, and
// the informer syncs and follows changes. client-go 1.37's informers stream their initial state
// with a watch (sendInitialEvents) and list only when the server cannot; both are counted.
func TestInformerRelistsAfterGone(t *testing.T) {
	allot := harness.StartAllot(t, "--no-scheduler", "--no-controllers", "--store", "memory",
		"--watch-history", fmt.Sprint(history))
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	cs := clientset(t, allot.AdminConfig(t))
	createNamespace(t, cs, "relist")
	pods := cs.CoreV1().Pods("relist")
	if _, err := pods.Create(ctx, pod("a", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	stale, err := pods.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	churn(t, cs, "relist", 2*history)

	var requests, gone atomic.Int32
	lw := &cache.ListWatch{
		ListFunc: func(opts metav1.ListOptions) (runtime.Object, error) {
			requests.Add(1)
			return pods.List(ctx, opts)
		},
		WatchFunc: func(opts metav1.ListOptions) (watch.Interface, error) {
			if requests.Add(1) == 1 {
				opts = metav1.ListOptions{ResourceVersion: stale.ResourceVersion, AllowWatchBookmarks: true}
				w, err := pods.Watch(ctx, opts)
				if err != nil {
					return nil, err
				}
				return watch.Filter(w, func(ev watch.Event) (watch.Event, bool) {
					if ev.Type == watch.Error && apierrors.IsResourceExpired(apierrors.FromObject(ev.Object)) {
						gone.Add(1)
					}
					return ev, true
				}), nil
			}
			return pods.Watch(ctx, opts)
		},
	}
	informer := cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cache.Indexers{})
	go informer.Run(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Fatal("the informer did not sync")
	}
	if _, err := pods.Create(ctx, pod("b", nil), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for {
		_, hasA, _ := informer.GetStore().GetByKey("relist/a")
		_, hasB, _ := informer.GetStore().GetByKey("relist/b")
		if hasA && hasB {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the informer did not recover from 410 (requests %d, 410s %d)", requests.Load(), gone.Load())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if gone.Load() != 1 || requests.Load() < 2 {
		t.Fatalf("want one 410 and a fresh start: 410s %d, requests %d", gone.Load(), requests.Load())
	}
}
