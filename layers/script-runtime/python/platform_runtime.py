"""The wrapper around a user's Python script, shared by the local worker
(platform_worker.py) and the Lambda entry (platform_lambda.py): loads the code, gives it `resources`,
captures print output as logs[], calls handler(event, context) and applies the interface's return convention."""
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


class _Capture(io.TextIOBase):
    def __init__(self, on_line=None):
        self.text = []
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
            self.text.append(text)
            if self._on_line:
                *complete, self._partial = (self._partial + text).split('\n')
                for line in complete:
                    self._on_line(line)
        return len(text)

    def lines(self):
        joined = ''.join(self.text)
        return joined[:-1].split('\n') if joined.endswith('\n') else (joined.split('\n') if joined else [])


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


def invoke(handler, event, context, script_path, on_line=None):
    """One invocation; never raises. `output` is JSON text so the size check is done once; `on_line` gets each
    printed line as it comes."""
    capture = _Capture(on_line)
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = capture
    started = time.perf_counter()
    value, thrown = None, None
    try:
        value = handler(event, Context(context))
        if hasattr(value, '__await__'):
            import asyncio  # only async handlers pay for importing it

            value = asyncio.run(_settle(value))
    except BaseException as error:  # a script's sys.exit() or MemoryError is its failure, not the worker's
        thrown = describe('SCRIPT_ERROR', error, script_path)
    finally:
        sys.stdout, sys.stderr = saved
    base = {'duration': (time.perf_counter() - started) * 1000, 'logs': capture.lines()}
    if capture.overflow:
        return {**base, 'status': 'error', 'output': 'null', 'error': {'code': 'LOG_LIMIT_EXCEEDED', 'message': f'the script printed more than {MAX_LOG_BYTES} bytes'}}
    if thrown:
        return {**base, 'status': 'error', 'output': 'null', 'error': thrown}
    text, problem = _serialize(value)
    if problem:
        return {**base, 'status': 'error', 'output': 'null', 'error': problem}
    return {**base, **_classify(value), 'output': text}
