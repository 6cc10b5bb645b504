#!/usr/bin/env python3
"""The layering test: every #include "..." under src/ must point down or sideways within its own
room, never up. The allowed order is written down here, once; docs/architecture.md explains it.

A room is a top-level folder of src/ (or one of the subfolders named in ROOMS, which are rooms of
their own). A room may include its own headers and those of the rooms it depends on, directly or
through others. Test code (*_test.cc, *_fuzz.cc and anything in a testing/ folder) may also use
the test infrastructure (TEST_INFRA) and, in a sub-room, all of its enclosing room; production
code never includes a testing/ header.

Usage: check_layering.py [SRC_DIR]   (default: src/ next to this repository's tests/)
Exits 1 and prints each upward edge as "file: includes header (room -> room)".
"""
import os
import re
import sys

# Each room and the rooms it may include directly. Lower rooms come first.
DEPENDS = {
    'common': [],
    'pki': ['common'],                # certificates: the CA, serving and client certificates
    'etcd': ['common'],               # a client of etcd's v3 API (gRPC)
    'api/machinery': ['common'],      # object model, meta, reflection, quantities, selectors
    'api/codec': ['api/machinery'],   # JSON and YAML
    'api/patch': ['api/codec'],       # JSON, merge and strategic-merge patches
    'api/managed_fields': ['api/machinery'],  # server-side apply's field ownership
    'api/core': ['api/machinery'],    # core/v1 and coordination.k8s.io
    'api/resource': ['api/core'],     # resource.k8s.io (v1, v1alpha3 PodSchedulingContext)
    'api/koordinator': ['api/core', 'api/resource'],  # scheduling.koordinator.sh Reservation
    'api/scheduling': ['api/core'],   # scheduling.k8s.io PriorityClass, priority admission
    'api/policy': ['api/core'],       # policy/v1 PodDisruptionBudget, Eviction
    'api/apps': ['api/core'],         # apps/v1 ReplicaSet, StatefulSet (and core/v1 ReplicationController)
    'api/storage': ['api/core'],      # storage.k8s.io/v1 StorageClass, CSI kinds, VolumeAttachment
    'api/rbac': ['api/machinery'],    # rbac.authorization.k8s.io Role, ClusterRole, bindings
    'api': ['api/resource', 'api/koordinator', 'api/scheduling', 'api/policy', 'api/rbac',
            'api/apps', 'api/storage', 'api/patch', 'api/managed_fields'],
    # the registry of every group
    'cel': ['api'],
    'workloads': ['api'],              # objects for benchmarks, tests, simulations
    'dra': ['cel'],
    'store': ['api', 'etcd'],          # the storage engine: index, commits, history, watch
    # what a write means beyond storing it: pod binding and eviction, garbage collection, event
    # expiry (kube-apiserver's pkg/registry beside its storage)
    'registry': ['store'],
    'client': ['api'],
    'client/inprocess': ['client', 'registry'],
    'apiserver': ['registry', 'pki'],
    # The scheduler's rooms, as kube-scheduler's: framework/ is what plugins see (the plugin
    # interfaces, NodeInfo and the snapshot, cycle state, the plugin registry, waiting pods);
    # runtime/ runs plugins; cache/ and queue/ are the core's. A plugin sees only the framework
    # and the metrics: never the queue, the cache, the runtime or the scheduler itself.
    'scheduler/framework': ['client', 'dra'],
    'scheduler/config': ['scheduler/framework'],
    'scheduler/metrics': ['scheduler/framework'],
    'scheduler/framework/runtime': ['scheduler/config', 'scheduler/metrics'],
    'scheduler/cache': ['scheduler/framework'],
    'scheduler/queue': ['scheduler/framework/runtime'],
    'scheduler/plugins': ['scheduler/config', 'scheduler/metrics'],
    'scheduler': ['scheduler/cache', 'scheduler/queue', 'scheduler/plugins'],
    'controllers': ['client', 'dra'],
    'node': ['client', 'dra'],
    'drivers': ['node'],
    'cluster': ['apiserver', 'client/inprocess', 'scheduler', 'controllers', 'drivers'],
    # the simulator: the system's components on a virtual clock, scenarios and reports
    'sim': ['cluster', 'workloads'],
    'cli': ['cluster', 'workloads', 'sim'],
    # Test-only rooms.
    'testing': ['api'],
    'integration': ['cluster', 'workloads', 'testing'],
}
# What test code may use besides its room's dependencies: real servers, stores and clients.
TEST_INFRA = ['apiserver', 'client/inprocess', 'testing']

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def room_of(path):
    """The longest room that `path` (relative to src/) lies in, or None."""
    best = None
    for room in DEPENDS:
        if path == room or path.startswith(room + '/'):
            if best is None or len(room) > len(best):
                best = room
    return best


def closure(rooms):
    seen, todo = set(), list(rooms)
    while todo:
        r = todo.pop()
        if r in seen:
            continue
        seen.add(r)
        todo.extend(DEPENDS[r])
    return seen


def is_test_code(path):
    name = os.path.basename(path)
    return (name.endswith(('_test.cc', '_fuzz.cc')) or '/testing/' in '/' + path
            or room_of(path) in ('testing', 'integration'))


def check(src):
    errors = []
    allowed = {r: closure([r]) for r in DEPENDS}
    # Test code of a sub-room may use all of its enclosing room (a plugin's test, the scheduler's
    # fakes and cache).
    outer = {r: min((o for o in DEPENDS if r == o or r.startswith(o + '/')), key=len)
             for r in DEPENDS}
    test_allowed = {r: allowed[r] | allowed[outer[r]] | closure(TEST_INFRA) for r in DEPENDS}
    count = 0
    for dirpath, _, files in os.walk(src):
        for name in sorted(files):
            if not name.endswith(('.h', '.cc')):
                continue
            full = os.path.join(dirpath, name)
            path = os.path.relpath(full, src)
            room = room_of(path)
            if room is None:
                errors.append(f'{path}: in no room; add its folder to DEPENDS in {__file__}')
                continue
            test = is_test_code(path)
            with open(full, encoding='utf-8') as f:
                for lineno, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    header = m.group(1)
                    target = room_of(header)
                    if target is None:
                        if os.path.isdir(os.path.join(src, header.split('/')[0])):
                            errors.append(f'{path}:{lineno}: includes {header}, in no room')
                        continue  # a library's header (rapidjson/, ...)
                    count += 1
                    if '/testing/' in '/' + header and not test:
                        errors.append(f'{path}:{lineno}: production code includes test-only '
                                      f'{header}')
                    ok = target in (test_allowed[room] if test else allowed[room])
                    if not ok:
                        errors.append(f'{path}:{lineno}: includes {header} ({room} -> {target}, '
                                      'which is not below it)')
    return count, errors


def self_test():
    """The checker itself: a tree with one edge of each kind must give exactly the bad ones."""
    import tempfile
    files = {
        'common/a.h': '',
        'api/machinery/m.h': '#include "common/a.h"\n',
        'store/s.h': '#include "api/machinery/m.h"\n#include "rapidjson/document.h"\n',
        'client/c.h': '#include "store/s.h"\n',                     # sideways: bad
        'api/machinery/up.cc': '#include "api/core/x.h"\n',        # upward: bad
        'api/core/x.h': '',
        'scheduler/testing/fake.h': '#include "client/inprocess/i.h"\n',  # test infra: fine
        'client/inprocess/i.h': '#include "store/s.h"\n',
        'scheduler/q.cc': '#include "scheduler/testing/fake.h"\n',  # prod -> testing: bad
        'scheduler/q_test.cc': '#include "apiserver/srv.h"\n',     # test infra: fine
        'apiserver/srv.h': '',
        'elsewhere/z.h': '',                                      # in no room: bad
    }
    with tempfile.TemporaryDirectory() as d:
        for name, text in files.items():
            os.makedirs(os.path.join(d, os.path.dirname(name)), exist_ok=True)
            with open(os.path.join(d, name), 'w') as f:
                f.write(text)
        _, errors = check(d)
    got = sorted(e.split(':')[0] for e in errors)
    want = ['api/machinery/up.cc', 'client/c.h', 'elsewhere/z.h', 'scheduler/q.cc']
    if got != want:
        print(f'self-test: expected errors in {want}, got {errors}')
        return 1
    print('layering self-test: the checker finds upward, sideways and test-only edges')
    return 0


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    here = os.path.dirname(os.path.abspath(__file__))
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, '..', '..', 'src')
    count, errors = check(src)
    for e in errors:
        print(e)
    print(f'layering: {count} includes checked, {len(errors)} upward')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
