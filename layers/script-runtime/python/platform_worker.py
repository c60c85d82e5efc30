"""Local-mode worker: one warm process per concurrent execution of a deployed version (a Lambda
container's stand-in). Speaks newline-delimited JSON with the platform over fd 3.
Usage: python3 -E -S -B platform_worker.py <script.py> <memory MB> [<installed packages dir>]"""
import ipaddress
import json
import os
import resource
import socket
import sys
import sysconfig

# Started with -S (no `site`: its .pth processing costs tens of ms per cold start); installed packages stay importable.
sys.path.extend(path for path in (sysconfig.get_paths()['purelib'], sysconfig.get_paths()['platlib']) if path not in sys.path)

import platform_private_ranges  # noqa: E402  (after the path is complete)
import platform_runtime  # noqa: E402

_BLOCKED_EVENTS = {
    'subprocess.Popen', 'os.system', 'os.exec', 'os.posix_spawn', 'os.spawn', 'os.fork', 'os.forkpty',
    'pty.spawn', 'os.kill', 'os.killpg', 'signal.pthread_kill',
}
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


_PRIVATE_NETWORKS = [ipaddress.ip_network(f'{network}/{prefix}') for network, prefix in platform_private_ranges.IPV4 + platform_private_ranges.IPV6]


def _is_private(host):
    """The platform's private-address list (platform_private_ranges.py, generated from outbound.ts)."""
    try:
        candidates = [ipaddress.ip_address(host)]
    except ValueError:
        candidates = [ipaddress.ip_address(info[4][0].split('%')[0]) for info in socket.getaddrinfo(host, None)]
    for address in candidates:
        if getattr(address, 'ipv4_mapped', None):
            address = address.ipv4_mapped
        if any(address in network for network in _PRIVATE_NETWORKS):
            return True
    return False


def _guard(script_dir, work_dir, packages_dir):
    """Defence in depth for local mode (CPython audit hooks are not a hard boundary; production runs in Lambda):
    no processes, signals or native calls; files only from the interpreter, the script and its own temp dir;
    loopback and private addresses only through `resources`."""
    stdlib = {os.path.realpath(path) for path in sysconfig.get_paths().values()} | {os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix)}
    own = {os.path.realpath(path) for path in (script_dir, work_dir, packages_dir) if path}
    readable = tuple(stdlib | own | {'/dev/urandom', '/dev/null', '/etc/ssl', '/etc/pki', '/usr/lib/ssl', '/usr/share/ca-certificates', '/etc/hosts', '/etc/resolv.conf', '/etc/nsswitch.conf',
                               '/etc/localtime', '/usr/share/zoneinfo', '/etc/mime.types'})
    writable = os.path.realpath(work_dir)

    def inside(path, roots):
        return any(path == root or path.startswith(root.rstrip('/') + '/') for root in roots)

    def hook(event, args):
        if event in _BLOCKED_EVENTS or event.startswith('ctypes.'):
            raise PermissionError(f'{event} is not allowed in scripts')
        if event == 'open':
            path, mode, flags = args
            if path is None or isinstance(path, int):
                return
            full = os.path.realpath(os.fsdecode(path))
            writing = (isinstance(mode, str) and any(c in mode for c in 'wax+')) or (flags or 0) & _WRITE_FLAGS
            if not inside(full, (writable,) if writing else readable):
                raise PermissionError(f'{full} is outside what scripts may {"write" if writing else "read"}')
        elif event in ('socket.connect', 'socket.sendto'):
            address = args[-1]
            if not isinstance(address, tuple) or _is_private(address[0]):
                raise PermissionError(f'connection to {address} refused: scripts reach private and loopback addresses only through resources')

    sys.addaudithook(hook)


class _Channel:
    def __init__(self):
        self._socket = socket.socket(fileno=3)
        self._reader = self._socket.makefile('rb')
        self._calls = 0

    def send(self, frame):
        self._socket.sendall((json.dumps(frame) + '\n').encode('utf-8'))

    def receive(self):
        line = self._reader.readline()
        if not line:
            sys.exit(0)
        return json.loads(line)

    def call_resource(self, name, method, params):
        self._calls += 1
        call_id = self._calls
        self.send({'type': 'resourceCall', 'callId': call_id, 'name': name, 'method': method, 'params': params})
        reply = self.receive()
        if reply.get('type') != 'resourceResult' or reply.get('callId') != call_id:
            raise platform_runtime.ResourceError('PROTOCOL_ERROR', 'unexpected reply to a resource call')
        if not reply['ok']:
            raise platform_runtime.ResourceError(reply.get('code'), reply.get('message'))
        return reply.get('data')


def main():
    script_path, memory_mb = sys.argv[1], int(sys.argv[2])
    packages_dir = sys.argv[3] if len(sys.argv) > 3 else None
    if packages_dir:
        # As Lambda puts a layer's /opt/python on the path.
        sys.path.append(packages_dir)
    # Descriptors the platform's launcher left open reach this process too; only the channel (3) is ours.
    os.closerange(4, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    # A backstop for one huge allocation; the platform watches resident memory against the exact limit.
    limit = (memory_mb + 256) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    channel = _Channel()
    _guard(os.path.dirname(script_path), os.getcwd(), packages_dir)
    try:
        handler = platform_runtime.load_handler(script_path, platform_runtime.Resources(channel.call_resource))
        channel.send({'type': 'ready'})
    except BaseException as error:
        channel.send({'type': 'loadError', 'error': platform_runtime.describe('SCRIPT_LOAD_ERROR', error, script_path)})
        return
    while True:
        frame = channel.receive()
        if frame.get('type') == 'invoke':
            # Lines go out as they are printed, so a run's logs can be followed while it runs.
            outcome = platform_runtime.invoke(
                handler, frame['event'], frame['context'], script_path, lambda line: channel.send({'type': 'log', **line}), channel.call_resource
            )
            # Duration and memory are the platform's measurements; the id ties the result to the invocation it answers.
            channel.send({'type': 'result', 'id': frame.get('id'), **outcome})


main()
