"""The wrapper around a user's Python script, shared by the local worker
(platform_worker.py) and the Lambda entry (platform_lambda.py): loads the code, gives it `resources`,
captures print output as logs[], calls handler(event, context) and applies the interface's return convention."""
import contextvars
import io
import json
import sys
import time
import traceback
import types

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
        self._call = call

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
            *complete, self._partial = (self._partial + text).split('\n')
            step = _running_step.get()
            for text_of_line in complete:
                line = _line(text_of_line, step)
                self.completed.append(line)
                if self._on_line:
                    self._on_line(line)
        return len(text)

    def lines(self):
        return self.completed + ([_line(self._partial, _running_step.get())] if self._partial else [])


# A durable script's step API (the design's "Durable runs"): the same rules as the platform's engine checks.
DURABLE_CHANNEL = '#durable'
MAX_STEP_RESULT_BYTES = 256 * 1024
MAX_WAIT_SECONDS = 365 * 24 * 60 * 60
_UNITS = {'seconds': 1, 'minutes': 60, 'hours': 3600, 'days': 86400}


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
            raise DurableError('DURABLE_INVALID_ARGUMENT', f'{what}: unknown unit {unit} (seconds, minutes, hours or days)')
        if isinstance(amount, bool) or not isinstance(amount, (int, float)) or amount != amount or amount in (float('inf'), float('-inf')) or amount < 0:
            raise DurableError('DURABLE_INVALID_ARGUMENT', f'{what}.{unit} must be a number of at least 0')
        total += amount * _UNITS[unit]
    if total <= 0:
        raise DurableError('DURABLE_INVALID_ARGUMENT', f'{what} must be more than 0 seconds')
    if total > MAX_WAIT_SECONDS:
        raise DurableError('DURABLE_INVALID_ARGUMENT', f'{what} may be at most 1 year ({MAX_WAIT_SECONDS} seconds)')
    return units


def _check_name(name):
    if not isinstance(name, str) or not name or len(name) > 200 or name.startswith('#'):
        raise DurableError('DURABLE_INVALID_ARGUMENT', 'a step name is a string of 1 to 200 characters, not starting with #')


def _storable(value):
    try:
        text = json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise DurableError('DURABLE_RESULT_NOT_JSON', f'a step result must be JSON: {error}') from None
    size = len(text.encode('utf-8'))
    if size > MAX_STEP_RESULT_BYTES:
        raise DurableError('DURABLE_RESULT_TOO_LARGE', f'a step result is at most {MAX_STEP_RESULT_BYTES} bytes of JSON; this one is {size}')
    return value


class DurableSteps:
    """context.step / context.wait / context.wait_for_callback over the run's journal: stored steps replay, new ones
    are checkpointed over `call` (the resource-call channel), a wait not yet ended checkpoints itself and raises
    _Suspended, which ends the invocation."""

    def __init__(self, journal, call):
        self._entries = journal.get('entries') or {}
        self._partial = bool(journal.get('partial'))
        self._call = call
        self._used = set()

    def _claim(self, name):
        """The entry of that name: from the journal handed over, or (held back or left out of it) asked for."""
        _check_name(name)
        if name in self._used:
            raise DurableError('DURABLE_NAME_REUSED', f'the name {name} is used twice in this run: step and wait names are unique per run')
        self._used.add(name)
        entry = self._entries.get(name)
        if (entry and entry.get('held')) or (entry is None and self._partial):
            return self._call(DURABLE_CHANNEL, 'entry', {'name': name}).get('entry')
        return entry

    def _settled(self, entry, name):
        if entry['status'] == 'waiting':
            raise _Suspended()
        if entry.get('error'):
            raise DurableError(entry['error']['code'], entry['error']['message'])
        if entry['status'] == 'cancelled':
            raise DurableError('CANCELLED', f'{name} was cancelled')
        return json.loads(entry['result']) if 'result' in entry else None

    def _open_wait(self, kind, name, args, after_open=None):
        entry = self._claim(name)
        if entry:
            return self._settled(entry, name)
        reply = self._call(DURABLE_CHANNEL, 'wait', {'kind': kind, 'name': name, 'args': args})
        if after_open:
            after_open(reply)
        raise _Suspended()

    def step(self, name, fn):
        entry = self._claim(name)
        if not callable(fn):
            raise DurableError('DURABLE_INVALID_ARGUMENT', f'step {name} needs a function to run')
        if entry:
            return self._settled(entry, name)
        started = time.perf_counter()
        token = _running_step.set(name)
        try:
            value = fn()
        except Exception as error:
            code = getattr(error, 'code', None)
            failure = {'code': code[:64] if isinstance(code, str) and code else 'STEP_FAILED', 'message': str(error)[:20000]}
            self._call(DURABLE_CHANNEL, 'step', {'name': name, 'error': failure, 'durationMs': (time.perf_counter() - started) * 1000})
            raise
        finally:
            _running_step.reset(token)
        stored = self._call(DURABLE_CHANNEL, 'step', {'name': name, 'result': _storable(value), 'durationMs': (time.perf_counter() - started) * 1000})
        return json.loads(stored['result'])

    def wait(self, name, **duration):
        _check_name(name)
        return self._open_wait('wait', name, {'duration': _duration_seconds('wait duration', duration)})

    def wait_for_callback(self, name, submitter, timeout=None):
        _check_name(name)
        if not callable(submitter):
            raise DurableError('DURABLE_INVALID_ARGUMENT', f'wait_for_callback {name} needs a submitter(callback_id, callback_url) function')
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
    if context.get('durable') is not None:
        steps = DurableSteps(context['durable'].get('journal') or {}, call)
        plain.update(
            step=steps.step,
            wait=steps.wait,
            wait_for_callback=steps.wait_for_callback,
            wait_for_approval=steps.wait_for_approval,
            wait_for_event=steps.wait_for_event,
        )
    try:
        value = handler(event, Context(plain))
        if hasattr(value, '__await__'):
            import asyncio  # only async handlers pay for importing it

            value = asyncio.run(_settle(value))
    except _Suspended:
        suspended = True
    except BaseException as error:  # a script's sys.exit() or MemoryError is its failure, not the worker's
        thrown = describe('SCRIPT_ERROR', error, script_path)
    finally:
        sys.stdout, sys.stderr = saved
    base = {'duration': (time.perf_counter() - started) * 1000, 'logs': capture.lines()}
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
