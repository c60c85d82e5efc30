"""Runs one conformance fixture (JSON on stdin) through the real Python runtime (platform_runtime.invoke) and prints
{"checkpoints": [...], "outcome": ...} as test/conformance/durable.test.ts compares them (README.md there)."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..', 'layers', 'script-runtime', 'python'))
import platform_runtime  # noqa: E402

fixture = json.load(sys.stdin)
checkpoints = []
thrown = {}


class ProgramError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def value_of(returns):
    if isinstance(returns, dict) and '$repeat' in returns:
        return returns['$repeat'] * returns['times']
    return returns


def call(name, method, params):
    if name != platform_runtime.DURABLE_CHANNEL:
        raise ProgramError('RESOURCE_NOT_ALLOWED', name)
    checkpoints.append({'method': method, 'params': {key: item for key, item in params.items() if key not in ('durationMs', 'context', 'position')}})
    if method == 'step':
        return {'result': None if 'error' in params else json.dumps(params.get('result')), 'error': params.get('error')}
    if method == 'entry':
        return {'entry': (fixture.get('entries') or {}).get(params['name'])}
    return {'wakeAt': '2030-01-01T00:00:00.000Z', 'callbackId': 'cb_conformance', 'callbackUrl': 'http://callback.invalid/'}


def run_op(context, op):
    kind, name = op['op'], op['name']
    if kind == 'step':

        def body():
            if 'throws' in op:
                raise ProgramError(op['throws']['code'], op['throws']['message'])
            return value_of(op.get('returns'))

        return context.step(name, body)
    if kind == 'wait':
        return context.wait(name, **op['duration'])
    if kind == 'callback':
        return context.wait_for_callback(name, lambda callback_id, url: None, timeout=op.get('timeout'))
    if kind == 'approval':
        return context.wait_for_approval(name, approvers=op.get('approvers'), message=op.get('message'), timeout=op.get('timeout'))
    if kind == 'event':
        return context.wait_for_event(name, event_type=op.get('eventType'), conditions=op.get('conditions'), timeout=op.get('timeout'))
    raise ValueError(f'unknown op {kind}')


def handler(event, context):
    results = []
    try:
        for op in fixture['program']:
            try:
                results.append(run_op(context, op))
            except Exception as error:
                if not op.get('catch'):
                    raise
                results.append({'caught': getattr(error, 'code', None)})
    except Exception as error:
        thrown['code'] = getattr(error, 'code', None)
        raise
    return results


outcome = platform_runtime.invoke(handler, {}, {'durable': {'journal': fixture['journal']}}, '/conformance/script.py', call=call)
if outcome['status'] == 'suspended':
    normalized = 'suspended'
elif outcome['status'] == 'success':
    normalized = {'completed': json.loads(outcome['output'])}
else:
    normalized = {'failed': thrown.get('code', outcome['error']['code'])}
print(json.dumps({'checkpoints': checkpoints, 'outcome': normalized}))
