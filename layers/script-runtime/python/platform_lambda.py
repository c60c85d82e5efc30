"""Lambda entry of a deployed Python script (handler `platform_lambda.handler`, found in the layer's /opt/python):
the platform invokes the `live` alias (or a version, for a test run) with {event, context} and reads back the
same outcome the local worker reports."""
import os

import platform_runtime


def _unavailable(name, method, _params):
    # The resource-call function a Lambda-deployed script would invoke is not part of the stack yet.
    raise platform_runtime.ResourceError('RESOURCES_UNAVAILABLE', f'resources.{name}.{method}: resource calls are not available to scripts deployed on AWS yet')


_SCRIPT = os.path.join(os.environ.get('LAMBDA_TASK_ROOT', '.'), 'script.py')
_handler, _load_error = None, None
try:
    _handler = platform_runtime.load_handler(_SCRIPT, platform_runtime.Resources(_unavailable))
except BaseException as error:  # reported with every invocation, as Lambda reports init errors
    _load_error = platform_runtime.describe('SCRIPT_LOAD_ERROR', error, _SCRIPT)


def handler(payload, _lambda_context):
    if _load_error:
        return {'status': 'error', 'output': 'null', 'error': _load_error, 'logs': [], 'duration': 0}
    return platform_runtime.invoke(_handler, payload['event'], payload['context'], _SCRIPT)
