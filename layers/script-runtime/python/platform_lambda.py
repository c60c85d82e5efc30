"""Lambda entry of a deployed Python script (handler `platform_lambda.handler`, found in the layer's /opt/python):
the platform invokes the `live` alias (or a version, for a test run) with {event, context, token} and reads back
the same outcome the local worker reports. Resource calls go to the platform's resource-call function
(RESOURCE_CALL_FUNCTION) with the run's signed grant, the one thing the script's role may invoke."""
import json
import os

import platform_runtime

# Lambda runs one invocation at a time per container: the running one's grant, cleared when it returns.
_token = None
_client = None


def _call_resource(name, method, params):
    global _client
    if _client is None:
        # In the Lambda Python runtime; loaded by the first resource call only.
        import boto3
        from botocore.config import Config

        # One attempt: a resource call is not idempotent. Reads wait out the resource-call function's 130 s timeout.
        _client = boto3.client('lambda', config=Config(connect_timeout=10, read_timeout=150, retries={'total_max_attempts': 1}))
    request = json.dumps({'token': _token, 'resource': name, 'method': method, 'params': params})
    try:
        response = _client.invoke(FunctionName=os.environ.get('RESOURCE_CALL_FUNCTION', ''), Payload=request.encode('utf-8'))
        text = None if response.get('FunctionError') else response['Payload'].read().decode('utf-8')
    except Exception as error:  # noqa: BLE001  (any SDK or network failure is the same failed call to the script)
        message = f"resources.{name}.{method}: the platform's resource-call function could not be reached ({type(error).__name__})"
        raise platform_runtime.ResourceError('RESOURCE_CALL_FAILED', message) from None
    return platform_runtime.settle_resource_answer(text, name, method)


_SCRIPT = os.path.join(os.environ.get('LAMBDA_TASK_ROOT', '.'), 'script.py')
_handler, _load_error = None, None
try:
    _handler = platform_runtime.load_handler(_SCRIPT, platform_runtime.Resources(_call_resource))
except BaseException as error:  # reported with every invocation, as Lambda reports init errors
    _load_error = platform_runtime.describe('SCRIPT_LOAD_ERROR', error, _SCRIPT)


def handler(payload, _lambda_context):
    global _token
    if _load_error:
        return {'status': 'error', 'output': 'null', 'error': _load_error, 'logs': [], 'duration': 0}
    _token = payload.get('token')
    try:
        return platform_runtime.invoke(_handler, payload['event'], payload['context'], _SCRIPT, call=_call_resource)
    finally:
        _token = None
