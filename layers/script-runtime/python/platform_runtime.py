"""The wrapper around a user's Python script, shared by the local worker
(platform_worker.py) and the Lambda entry (platform_lambda.py): loads the code, gives it `resources`,
captures print output as logs[], calls handler(event, context) and applies the interface's return convention."""
import contextvars
import io
import json
import os
import re
import sys
import threading
import time
import traceback
import types
from concurrent.futures import ThreadPoolExecutor

# One frame at a time on the platform channel: branches of a map run in threads, and print, resource calls and
# checkpoints share the channel.
_channel_lock = threading.RLock()

# Lambda's synchronous response limit.
MAX_RESPONSE_BYTES = 6 * 1024 * 1024
# A script printing past this fails: logs are stored with the execution, and unbounded output is a bug.
MAX_LOG_BYTES = 1024 * 1024


class ResourceError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def settle_resource_answer(text, name, method):
    """The resource-call function's answer ({ok: true, data} or {ok: false, error: {code, message}}, as JSON text)
    as the call's data or its ResourceError; None means the function itself failed."""
    try:
        answer = json.loads(text) if text is not None else None
    except ValueError:
        answer = None
    if not isinstance(answer, dict) or not isinstance(answer.get('ok'), bool):
        raise ResourceError('RESOURCE_CALL_FAILED', f"resources.{name}.{method}: the platform's resource-call function failed")
    if answer['ok']:
        return answer.get('data')
    raise ResourceError(answer['error']['code'], answer['error']['message'])


class _Resource:
    def __init__(self, call, name):
        self._call = call
        self._name = name

    def __getattr__(self, method):
        if method.startswith('__'):
            raise AttributeError(method)
        if isinstance(self._name, str) and self._name.startswith('#'):
            # '#' names are the platform's own channels (a durable run's checkpoints go through the step API only).
            raise ResourceError('RESOURCE_NOT_ALLOWED', f"{self._name} is not a resource: names starting with # are the platform's")
        return lambda params=None, **kwargs: self._call(self._name, method, params if params is not None else kwargs)


class Resources:
    """`resources['name'].method(params)` or `resources.name.method(params)`; calls are synchronous."""

    def __init__(self, call):
        def serialized(*args):
            with _channel_lock:
                return call(*args)

        self._call = serialized

    def __getitem__(self, name):
        return _Resource(self._call, name)

    def __getattr__(self, name):
        if name.startswith('__'):
            raise AttributeError(name)
        return _Resource(self._call, name)


class Context(dict):
    """`context['scriptId']` and `context.scriptId` both work."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError as missing:
            raise AttributeError(name) from missing


# The durable step whose function is running: a line printed in it is tagged with its name.
_running_step = contextvars.ContextVar('running_step', default=None)


def _line(text, step):
    return {'text': text, 'step': step} if step is not None else {'text': text}


class _Capture(io.TextIOBase):
    """Printed text as lines `{text, step?}`; a line belongs to the step running when it was completed."""

    def __init__(self, on_line=None):
        self.completed = []
        self.bytes = 0
        self.overflow = False
        self._on_line = on_line
        self._partial = ''

    def writable(self):
        return True

    def write(self, text):
        self.bytes += len(text.encode('utf-8', 'replace'))
        if self.bytes > MAX_LOG_BYTES:
            self.overflow = True
        else:
            step = _running_step.get()
            # Branches of a map or parallel print from threads: one line at a time reaches the channel.
            with _channel_lock:
                *complete, self._partial = (self._partial + text).split('\n')
                for text_of_line in complete:
                    line = _line(text_of_line, step)
                    self.completed.append(line)
                    if self._on_line:
                        self._on_line(line)
        return len(text)

    def lines(self):
        return self.completed + ([_line(self._partial, _running_step.get())] if self._partial else [])


# A durable script's step API: the protocol's rules (../durable-protocol.json), which the platform's engine checks too.
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'durable-protocol.json'), encoding='utf-8') as _file:
    PROTOCOL = json.load(_file)
DURABLE_CHANNEL = PROTOCOL['channel']
_LIMITS = PROTOCOL['limits']
_CODES = PROTOCOL['errorCodes']
MAX_STEP_RESULT_BYTES = _LIMITS['maxStepResultBytes']
MAX_WAIT_SECONDS = _LIMITS['maxWaitSeconds']
_UNITS = PROTOCOL['durationUnits']


class DurableError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


class _Suspended(BaseException):
    """Ends the invocation at a wait; a BaseException, so a script's `except Exception` does not swallow it."""


def _duration_seconds(what, units):
    total = 0
    for unit, amount in units.items():
        if unit not in _UNITS:
            raise DurableError(_CODES['invalidArgument'], f'{what}: unknown unit {unit} (seconds, minutes, hours or days)')
        if isinstance(amount, bool) or not isinstance(amount, (int, float)) or amount != amount or amount in (float('inf'), float('-inf')) or amount < 0:
            raise DurableError(_CODES['invalidArgument'], f'{what}.{unit} must be a number of at least 0')
        total += amount * _UNITS[unit]
    if total <= 0:
        raise DurableError(_CODES['invalidArgument'], f'{what} must be more than 0 seconds')
    if total > MAX_WAIT_SECONDS:
        raise DurableError(_CODES['invalidArgument'], f'{what} may be at most 1 year ({MAX_WAIT_SECONDS} seconds)')
    return units


def _check_name(name):
    if not isinstance(name, str) or not name or len(name) > _LIMITS['maxNameLength'] or name.startswith(_LIMITS['reservedNamePrefix']):
        raise DurableError(
            _CODES['invalidArgument'], f"a step name is a string of 1 to {_LIMITS['maxNameLength']} characters, not starting with {_LIMITS['reservedNamePrefix']}"
        )


def _storable(value):
    try:
        text = json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise DurableError(_CODES['resultNotJson'], f'a step result must be JSON: {error}') from None
    size = len(text.encode('utf-8'))
    if size > MAX_STEP_RESULT_BYTES:
        raise DurableError(_CODES['resultTooLarge'], f'a step result is at most {MAX_STEP_RESULT_BYTES} bytes of JSON; this one is {size}')
    return value


MAX_ENTRY_NAME_LENGTH = _LIMITS['maxEntryNameLength']
MAX_BRANCHES = _LIMITS['maxBranches']
DEFAULT_MAX_CONCURRENCY = _LIMITS['defaultMaxConcurrency']


def _failure_of(error):
    """The error a failed step or branch is recorded with: its own code when it has one."""
    code = getattr(error, 'code', None)
    return {
        'code': code[: _LIMITS['maxErrorCodeLength']] if isinstance(code, str) and code else _CODES['stepFailed'],
        'message': str(error)[: _LIMITS['maxErrorMessageLength']],
    }


def _concurrency(what, options, max_concurrency):
    """At most this many branches of a map or parallel run at once (default 10)."""
    if options is not None and not isinstance(options, dict):
        raise DurableError(_CODES['invalidArgument'], f'{what}: options must be a dict ({{"maxConcurrency": n}})')
    value = max_concurrency if max_concurrency is not None else (options or {}).get('maxConcurrency', DEFAULT_MAX_CONCURRENCY)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1 or value > MAX_BRANCHES:
        raise DurableError(_CODES['invalidArgument'], f'{what}: max_concurrency must be a whole number from 1 to {MAX_BRANCHES}')
    return value


class _RunJournal:
    """What the contexts of one invocation share: the journal handed over, the names used, the checkpoint channel
    (one call at a time: branches run in threads), and the first departure from the journal's order, which the run
    fails with whatever the code does with the error."""

    def __init__(self, journal, call):
        self.entries = journal.get('entries') or {}
        self.partial = bool(journal.get('partial'))
        self._call = call
        self._used = set()
        self._lock = threading.Lock()
        self.recorded = {
            (entry.get('context') or '', entry['position']): {'name': name, 'type': entry.get('type')}
            for name, entry in self.entries.items()
            if isinstance(entry.get('position'), int)
        }
        self.departure = None

    def call(self, method, params):
        with _channel_lock:
            return self._call(DURABLE_CHANNEL, method, params)

    def reserve(self, full):
        if len(full) > MAX_ENTRY_NAME_LENGTH:
            raise DurableError(_CODES['invalidArgument'], f'{full}: names with their branch prefixes are at most {MAX_ENTRY_NAME_LENGTH} characters')
        with self._lock:
            if full in self._used:
                raise DurableError(_CODES['nameReused'], f'the name {full} is used twice in this run: step and wait names are unique per run')
            self._used.add(full)

    def look_up(self, full):
        """The entry of that name: from the journal handed over, or (held back or left out of it) asked for."""
        entry = self.entries.get(full)
        if (entry and entry.get('held')) or (entry is None and self.partial):
            return self.call('entry', {'name': full}).get('entry')
        return entry


class DurableSteps:
    """The step API of one context (the handler's, or a branch's of a map or parallel, its names prefixed
    `<name>/<index>/`) over the run's journal: stored steps replay, new ones are checkpointed over `call` (the
    resource-call channel), a wait not yet ended checkpoints itself and raises _Suspended. In the handler's context
    that ends the invocation; in a branch it ends the branch, and its map raises it once every branch has ended or
    waits. Each operation's context and place are checkpointed with it: a resumed invocation calling another one
    there fails the run with DURABLE_NONDETERMINISTIC."""

    def __init__(self, journal, call, prefix='', shared=None):
        self._run = shared or _RunJournal(journal, call)
        self._prefix = prefix
        self._position = 0

    def departure(self):
        return self._run.departure

    def _claim(self, name, kind):
        _check_name(name)
        full = self._prefix + name
        self._run.reserve(full)
        site = {'context': self._prefix, 'position': self._position}
        self._position += 1
        expected = self._run.recorded.get((self._prefix, site['position']))
        if expected and (expected['name'] != full or expected['type'] != kind):
            error = DurableError(
                _CODES['nondeterministic'],
                f"the run's journal holds {expected['type']} {expected['name']} at this place, but the code called {kind} {full}: "
                'the code changed the order or kind of its operations since the run started',
            )
            error.details = {'expected': expected, 'actual': {'name': full, 'type': kind}}
            if self._run.departure is None:
                self._run.departure = error
            raise self._run.departure
        return full, site, self._run.look_up(full)

    def _settled(self, entry, name):
        if entry['status'] == 'waiting':
            raise _Suspended()
        if entry.get('error'):
            raise DurableError(entry['error']['code'], entry['error']['message'])
        if entry['status'] == 'cancelled':
            raise DurableError(_CODES['cancelled'], f'{name} was cancelled')
        return json.loads(entry['result']) if 'result' in entry else None

    def _open_wait(self, kind, name, args, after_open=None):
        full, site, entry = self._claim(name, kind)
        if entry:
            return self._settled(entry, full)
        reply = self._run.call('wait', {'kind': kind, 'name': full, 'args': args, **site})
        if after_open:
            after_open(reply)
        raise _Suspended()

    def step(self, name, fn):
        full, site, entry = self._claim(name, 'step')
        if not callable(fn):
            raise DurableError(_CODES['invalidArgument'], f'step {name} needs a function to run')
        if entry:
            return self._settled(entry, full)
        started = time.perf_counter()
        token = _running_step.set(full)
        try:
            value = fn()
        except Exception as error:
            self._run.call('step', {'name': full, **site, 'error': _failure_of(error), 'durationMs': (time.perf_counter() - started) * 1000})
            raise
        finally:
            _running_step.reset(token)
        stored = self._run.call('step', {'name': full, **site, 'result': _storable(value), 'durationMs': (time.perf_counter() - started) * 1000})
        return json.loads(stored['result'])

    def wait(self, name, **duration):
        _check_name(name)
        return self._open_wait('wait', name, {'duration': _duration_seconds('wait duration', duration)})

    def wait_for_callback(self, name, submitter, timeout=None):
        _check_name(name)
        if not callable(submitter):
            raise DurableError(_CODES['invalidArgument'], f'wait_for_callback {name} needs a submitter(callback_id, callback_url) function')
        if timeout is None:
            args = {}
        else:
            args = {'timeout': _duration_seconds('timeout', timeout if isinstance(timeout, dict) else {'seconds': timeout})}
        return self._open_wait('callback', name, args, lambda reply: submitter(reply['callbackId'], reply['callbackUrl']))

    def wait_for_approval(self, name, approvers=None, message=None, timeout=None):
        """Returns {decision, by, comment, decidedAt}: a reject is an answer; only the timeout raises (TIMEOUT)."""
        _check_name(name)
        args = {}
        if approvers is not None:
            args['approvers'] = [approvers] if isinstance(approvers, str) else approvers
        if message is not None:
            args['message'] = message
        if timeout is not None:
            args['timeout'] = _duration_seconds('timeout', timeout if isinstance(timeout, dict) else {'seconds': timeout})
        return self._open_wait('approval', name, args)

    def wait_for_event(self, name, event_type=None, conditions=None, timeout=None):
        """Returns the first of the run user's events of event_type that meets conditions."""
        _check_name(name)
        args = {'eventType': event_type}
        if conditions is not None:
            args['conditions'] = conditions
        if timeout is not None:
            args['timeout'] = _duration_seconds('timeout', timeout if isinstance(timeout, dict) else {'seconds': timeout})
        return self._open_wait('event', name, args)

    def invoke(self, name, script, data=None, timeout=None):
        """Runs another script (id or name) as a child run and returns its result; its error is raised with its code."""
        _check_name(name)
        if not isinstance(script, str) or not script or len(script) > 200:
            raise DurableError(_CODES['invalidArgument'], f"invoke {name} needs the script's id or name (1 to 200 characters)")
        args = {'script': script, 'data': data}
        if timeout is not None:
            args['timeout'] = _duration_seconds('timeout', timeout if isinstance(timeout, dict) else {'seconds': timeout})
        return self._open_wait('invoke', name, args)

    def map(self, name, items, fn, options=None, max_concurrency=None):
        """fn(branch_context, item, index) for each item, at most max_concurrency at once; the results in input order."""
        _check_name(name)
        if not isinstance(items, (list, tuple)):
            raise DurableError(_CODES['invalidArgument'], f'map {name} needs a list of items')
        if len(items) > MAX_BRANCHES:
            raise DurableError(_CODES['invalidArgument'], f'map {name}: at most {MAX_BRANCHES} items, not {len(items)}')
        if not callable(fn):
            raise DurableError(_CODES['invalidArgument'], f'map {name} needs a function(branch_context, item, index)')
        limit = _concurrency(f'map {name}', options, max_concurrency)
        return self._fan_out('map', name, len(items), lambda branch, index: fn(branch, items[index], index), limit)

    def parallel(self, name, fns, options=None, max_concurrency=None):
        """Each fn(branch_context), at most max_concurrency at once; the results in input order."""
        _check_name(name)
        if not isinstance(fns, (list, tuple)) or not all(callable(fn) for fn in fns):
            raise DurableError(_CODES['invalidArgument'], f'parallel {name} needs a list of functions(branch_context)')
        if len(fns) > MAX_BRANCHES:
            raise DurableError(_CODES['invalidArgument'], f'parallel {name}: at most {MAX_BRANCHES} branches, not {len(fns)}')
        limit = _concurrency(f'parallel {name}', options, max_concurrency)
        return self._fan_out('parallel', name, len(fns), lambda branch, index: fns[index](branch), limit)

    def _fan_out(self, kind, name, count, run_branch, limit):
        """Runs the branches in up to `limit` threads; AWS's default: a failure starts no further branch."""
        full, site, entry = self._claim(name, kind)
        if entry:
            return self._settled(entry, full)
        results = [None] * count
        failures = {}
        parked = []

        def branch(index):
            if failures:
                return
            own = f'{full}/{index}'
            self._run.reserve(own)
            stored = self._run.look_up(own)
            if stored and stored['status'] != 'waiting':
                if stored.get('error'):
                    failures[index] = stored['error']
                else:
                    results[index] = json.loads(stored['result']) if 'result' in stored else None
                return
            try:
                value = _storable(run_branch(DurableSteps(None, None, f'{own}/', self._run), index))
            except _Suspended:
                parked.append(index)
                return
            except Exception as error:
                if self._run.departure is not None:
                    failures[index] = {'code': self._run.departure.code, 'message': str(self._run.departure)}
                    return
                kept = self._run.call('step', {'name': own, 'error': _failure_of(error)})
                failures[index] = kept.get('error') or _failure_of(error)
                return
            kept = self._run.call('step', {'name': own, 'result': value})
            results[index] = json.loads(kept['result'])

        with ThreadPoolExecutor(max_workers=limit) as pool:
            for future in [pool.submit(branch, index) for index in range(count)]:
                future.result()
        if self._run.departure is not None:
            raise self._run.departure
        if failures:
            first = failures[min(failures)]
            kept = self._run.call('step', {'name': full, 'type': kind, **site, 'error': {'code': first['code'], 'message': first['message']}})
            recorded = kept.get('error') or first
            raise DurableError(recorded['code'], recorded['message'])
        if parked:
            raise _Suspended()
        kept = self._run.call('step', {'name': full, 'type': kind, **site, 'result': _storable(results)})
        return json.loads(kept['result'])


OWN_CODE = re.compile(r'[A-Z][A-Z0-9_]{0,63}')


def own_code(error):
    """A raised error's own `code` (UPSTREAM_DOWN, a step's DURABLE_*), kept on the run; anything else is SCRIPT_ERROR."""
    code = getattr(error, 'code', None)
    if isinstance(error, SystemExit) or not isinstance(code, str) or not OWN_CODE.fullmatch(code):
        return None
    return code


def describe(code, error, script_path):
    if isinstance(error, MemoryError):
        code = 'MEMORY_LIMIT_EXCEEDED'
    line = getattr(error, 'lineno', None) if isinstance(error, SyntaxError) else None
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename == script_path:
            line = frame.lineno
    text = str(error)
    described = {'code': code, 'message': f'{type(error).__name__}: {text}' if text else type(error).__name__}
    if line:
        described['line'] = line
    return described


def load_handler(script_path, resources):
    """Runs the script's top level once per process, as a warm Lambda container does."""
    with open(script_path, encoding='utf-8') as source:
        code = compile(source.read(), script_path, 'exec')
    module = types.ModuleType('script')
    module.__file__ = script_path
    module.resources = resources
    sys.modules['script'] = module
    exec(code, module.__dict__)
    handler = module.__dict__.get('handler')
    if not callable(handler):
        raise RuntimeError('the script defines no handler(event, context) function')
    return handler


async def _settle(awaitable):
    return await awaitable


def _classify(value):
    if isinstance(value, dict) and value.get('success') is False:
        if value.get('noOp') is True:
            return {'status': 'success', 'noOp': True}
        reason = value.get('reason')
        return {'status': 'error', 'error': {'code': 'SCRIPT_FAILURE', 'message': reason if isinstance(reason, str) else 'the script reported failure'}}
    return {'status': 'success'}


def _serialize(value):
    try:
        text = json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as error:
        return None, {'code': 'RESULT_NOT_SERIALIZABLE', 'message': f'the result is not JSON: {error}'}
    if len(text.encode('utf-8')) > MAX_RESPONSE_BYTES:
        return None, {'code': 'RESPONSE_TOO_LARGE', 'message': f'the result is larger than {MAX_RESPONSE_BYTES} bytes'}
    return text, None


def invoke(handler, event, context, script_path, on_line=None, call=None):
    """One invocation; never raises. `output` is JSON text so the size check is done once; `on_line` gets each
    printed line as it comes. A durable script's context (`durable` carries its journal) gets the step API, and a
    wait ends the invocation as suspended."""
    capture = _Capture(on_line)
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = capture
    started = time.perf_counter()
    value, thrown, suspended = None, None, False
    plain = {key: item for key, item in context.items() if key != 'durable'}
    steps = None
    if context.get('durable') is not None:
        steps = DurableSteps(context['durable'].get('journal') or {}, call)
        plain.update(
            step=steps.step,
            wait=steps.wait,
            wait_for_callback=steps.wait_for_callback,
            wait_for_approval=steps.wait_for_approval,
            wait_for_event=steps.wait_for_event,
            invoke=steps.invoke,
            map=steps.map,
            parallel=steps.parallel,
        )
    try:
        value = handler(event, Context(plain))
        if hasattr(value, '__await__'):
            import asyncio  # only async handlers pay for importing it

            value = asyncio.run(_settle(value))
    except _Suspended:
        suspended = True
    except BaseException as error:  # a script's sys.exit() or MemoryError is its failure, not the worker's
        thrown = describe(own_code(error) or 'SCRIPT_ERROR', error, script_path)
    finally:
        sys.stdout, sys.stderr = saved
    base = {'duration': (time.perf_counter() - started) * 1000, 'logs': capture.lines()}
    # A resumed run whose code left its journal's order fails with that, whatever the code did with the error.
    departed = steps.departure() if steps else None
    if departed is not None and not capture.overflow:
        return {**base, 'status': 'error', 'output': 'null', 'error': {'code': departed.code, 'message': str(departed)}}
    if suspended and not capture.overflow:
        return {**base, 'status': 'suspended', 'output': 'null', 'error': None}
    if capture.overflow:
        return {**base, 'status': 'error', 'output': 'null', 'error': {'code': 'LOG_LIMIT_EXCEEDED', 'message': f'the script printed more than {MAX_LOG_BYTES} bytes'}}
    if thrown:
        return {**base, 'status': 'error', 'output': 'null', 'error': thrown}
    text, problem = _serialize(value)
    if problem:
        return {**base, 'status': 'error', 'output': 'null', 'error': problem}
    return {**base, **_classify(value), 'output': text}
