"""The facts lint/code-facts.ts describes of a Python script: syntax error, the handler, resources calls,
event['data'] field reads, SDK calls and imported modules outside the standard library, with line numbers.
Locally: code on stdin, JSON on stdout. On AWS: the handler of the stack's Python lint function
(lib/python-lint.ts), `{"code": ...}` in, the facts out."""
import ast
import json
import sys

SDK_ROOTS = {'mirra', 'sdk'}
# Provided by the platform's runtime wrapper, not installed.
LOCAL_MODULES = {'platform_runtime'}


def constant_key(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def step(node):
    """(inner, key) for `inner['key']`, `inner.get('key', ...)` and `inner.key`; None otherwise."""
    if isinstance(node, ast.Subscript):
        return node.value, constant_key(node.slice)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == 'get' and node.args:
        return node.func.value, constant_key(node.args[0])
    if isinstance(node, ast.Attribute):
        return node.value, node.attr
    return None


def chain(node):
    """Root name and keys of `root['a'].get('b')...`, outermost last."""
    keys = []
    while True:
        stepped = step(node)
        if stepped is None:
            break
        node, key = stepped
        keys.insert(0, key)
    return (node.id, keys) if isinstance(node, ast.Name) else (None, keys)


UNSTEADY = {'time.time', 'datetime.now', 'datetime.datetime.now'}


def unsteady_calls(tree, context_name):
    """Clock and random reads (time.time(), random.*(), datetime.now()) outside the function of a
    context.step(name, fn): a resumed durable run replays its code and gets another value. A lambda or a function
    named in the step call counts as inside it."""
    stepped = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == 'step':
            if isinstance(node.func.value, ast.Name) and node.func.value.id == context_name:
                for argument in node.args[1:2]:
                    if isinstance(argument, ast.Lambda):
                        stepped.update(id(inner) for inner in ast.walk(argument))
                    elif isinstance(argument, ast.Name):
                        stepped.add(argument.id)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in stepped:
            stepped.update(id(inner) for inner in ast.walk(node))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or id(node) in stepped:
            continue
        root, keys = chain(node.func)
        called = '.'.join([root or '', *[key or '[]' for key in keys]])
        if called in UNSTEADY or (root == 'random' and len(keys) == 1):
            found.append({'line': node.lineno, 'call': f'{called}()'})
    return found


def facts(code):
    try:
        tree = ast.parse(code)
    except SyntaxError as error:
        return {'syntaxError': {'message': error.msg, 'line': error.lineno or 1, 'column': error.offset or 1},
                'resourceCalls': [], 'dataAccesses': [], 'sdkCalls': [], 'imports': [], 'unsteadyCalls': []}
    result = {'resourceCalls': [], 'dataAccesses': [], 'sdkCalls': [], 'imports': [], 'unsteadyCalls': []}
    event_name = 'event'
    context_name = 'context'
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == 'handler':
            result['handler'] = {'line': node.lineno, 'isAsync': isinstance(node, ast.AsyncFunctionDef)}
            if node.args.args:
                event_name = node.args.args[0].arg
            if len(node.args.args) > 1:
                context_name = node.args.args[1].arg
    result['unsteadyCalls'] = unsteady_calls(tree, context_name)
    aliases = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            root, keys = chain(node.value)
            if root == event_name and keys == ['data']:
                aliases.add(node.targets[0].id)
    inner = set()
    for node in ast.walk(tree):
        stepped = step(node)
        if stepped is not None:
            inner.add(id(stepped[0]))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        else:
            modules = []
        for module in modules:
            top = module.split('.')[0]
            if top not in sys.stdlib_module_names and top not in LOCAL_MODULES:
                result['imports'].append({'line': node.lineno, 'module': top})
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute):
                target = func.value
                name = None
                if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and target.value.id == 'resources':
                    name = constant_key(target.slice)
                    result['resourceCalls'].append({'line': node.lineno, 'method': func.attr, **({'name': name} if name else {})})
                elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == 'resources':
                    result['resourceCalls'].append({'line': node.lineno, 'name': target.attr, 'method': func.attr})
                root, _ = chain(func)
                if root in SDK_ROOTS:
                    result['sdkCalls'].append({'line': node.lineno, 'call': ast.unparse(func)})
        if id(node) in inner or step(node) is None:
            continue
        root, keys = chain(node)
        if root == event_name and keys[:1] == ['data'] and len(keys) > 1:
            path = keys[1:]
        elif root in aliases and keys:
            path = keys
        else:
            continue
        known = []
        for key in path:
            if key is None:
                break
            known.append(key)
        if known and not (known[-1] == 'get' and isinstance(node, ast.Attribute)):
            result['dataAccesses'].append({'line': node.lineno, 'path': known})
    return result


def handler(event, _context):
    return facts(event['code'])


if __name__ == '__main__':
    print(json.dumps(facts(sys.stdin.read())))
