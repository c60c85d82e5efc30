"""The pip installer function of the stack (lib/scripts.ts, PackageInstallers).

Invoked by the API functions with an install request, it answers as functions/scripts/packages/installer-function.ts
describes: the tree stored under script-deps/<tree hash>.zip in the script-packages bucket, or a refusal naming
the package. It runs the pip command line of functions/scripts/packages/package-managers.ts (installPython) and refuses and
locks as it does; the integration test checks both give the same lock hash for the same requirements.
Nothing here logs the request: it carries the account registry's token.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
import zipfile

# Enough of pip's -vv output to hold the lines that say why a package was not found.
OUTPUT_TAIL = 65536
PUBLIC_INDEX = 'https://pypi.org/simple/'
# A fixed date: equal trees give equal zips.
ZIP_DATE = (2020, 1, 1, 0, 0, 0)


class Refusal(Exception):
    def __init__(self, answer):
        super().__init__(answer.get('message', answer['kind']))
        self.answer = answer


def resolution(package, message):
    return Refusal({'ok': False, 'kind': 'resolution', 'package': package, 'message': message})


def names(declared):
    return [(re.match(r'^[A-Za-z0-9._-]+', requirement) or [requirement])[0] for requirement in declared]


def index_url(registry):
    if not registry:
        return PUBLIC_INDEX
    if not registry.get('token'):
        return registry['url']
    parts = urllib.parse.urlsplit(registry['url'])
    netloc = '__token__:%s@%s' % (urllib.parse.quote(registry['token'], safe=''), parts.netloc)
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def scrub(text, registry):
    token = (registry or {}).get('token')
    if not token:
        return text
    return text.replace(token, '***').replace(urllib.parse.quote(token, safe=''), '***')


def registry_hint():
    return 'check the URL, or choose the account\'s registry with setPackageRegistry (ecosystem "pypi")'


def pip_failure(output, declared, index):
    """package-managers.ts's pipFailure: pip's -vv lines tell an unreachable index, a missing project and one without wheels apart."""
    everything = ', '.join(declared)
    if re.search(r'Could not fetch URL \S+: connection error|Failed to establish a new connection|Name or service not known|Temporary failure in name resolution|Read timed out|SSLError', output):
        errno = re.search(r'\[Errno -?\d+\] ([^\'"\\)]+)', output)
        other = re.search(r'(Read timed out|SSLError|Name or service not known)', output)
        cause = errno.group(1).strip() if errno else (other.group(1) if other else 'connection error')
        return resolution(everything, 'the package index %s could not be reached (%s) while installing %s; %s' % (index, cause, everything, registry_hint()))
    if re.search(r'Could not fetch URL \S+: 40[13] ', output):
        return resolution(everything, 'the package index %s refused access while installing %s (wrong or missing token); %s' % (index, everything, registry_hint()))
    failed = re.search(r'No matching distribution found for ([A-Za-z0-9._-]+)(\S*)', output)
    if not failed:
        tail = ' '.join(output.strip().split('\n')[-3:])[:400]
        return resolution(everything, 'pip could not install %s: %s' % (everything, tail))
    name, spec = failed.group(1), failed.group(2)
    project = re.sub(r'[-_.]+', '-', name.lower())
    if re.search(r'Could not fetch URL \S*/%s/: 404' % project.replace('-', '[-_.]'), output, re.IGNORECASE):
        return resolution(name, 'package %s does not exist in the package index %s' % (name, index))
    versions = re.search(r'requirement %s\S* \(from versions: ([^)]*)\)' % re.escape(name), output)
    if versions and versions.group(1) != 'none':
        return resolution(name, 'no release of %s matches %s in the package index %s (it has %s)' % (name, spec, index, versions.group(1)))
    if re.search(r"none of the wheel's tags .* are compatible|is not a supported wheel on this platform", output):
        return resolution(name, 'package %s%s has wheels only for other platforms (native code) in %s; only pure-Python wheels (py3-none-any) are installed' % (name, spec, index))
    return resolution(name, 'package %s%s has no wheel in %s, only source packages, which the platform does not build; choose a release that ships a pure-Python wheel' % (name, spec, index))


def run_pip(work, request, timeout):
    command = [
        sys.executable, '-E', '-s', '-m', 'pip', 'install', '-vv', '--retries', '1', '--isolated', '--no-input', '--disable-pip-version-check', '--progress-bar', 'off', '--no-compile',
        '--only-binary', ':all:', '--target', os.path.join(work, 'tree', 'python'), '--index-url', index_url(request.get('registry')),
        '--cache-dir', os.path.join(work, 'cache'), '--report', os.path.join(work, 'report.json'), '-r', os.path.join(work, 'requirements.txt'),
    ]
    # No credential of the function reaches pip: only what it needs to run.
    env = {'PATH': '/usr/bin:/bin', 'HOME': work, 'LANG': 'C.UTF-8', 'TMPDIR': os.path.join(work, 'tmp')}
    declared = names(request['declared'])
    try:
        done = subprocess.run(command, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    except subprocess.TimeoutExpired:
        everything = ', '.join(declared)
        raise resolution(everything, 'installing %s took longer than %g s, the time limit of a package install' % (everything, timeout))
    if done.returncode != 0:
        index = (request.get('registry') or {}).get('url') or PUBLIC_INDEX
        raise pip_failure(scrub(done.stdout.decode('utf-8', 'replace')[-OUTPUT_TAIL:], request.get('registry')), declared, index)


def locked(work):
    with open(os.path.join(work, 'report.json'), encoding='utf-8') as report:
        installed = json.load(report).get('install', [])
    for item in installed:
        name, version = item['metadata']['name'], item['metadata']['version']
        url = (item.get('download_info') or {}).get('url') or ''
        wheel = urllib.parse.unquote(url.split('/')[-1].split('#')[0])
        # name-version(-build)?-python-abi-platform.whl: only abi `none` and platform `any` are pure Python.
        if wheel[:-len('.whl')].split('-')[-2:] != ['none', 'any']:
            raise Refusal({'ok': False, 'kind': 'refused', 'package': name, 'message': 'package %s %s ships native code (%s); only pure-Python wheels are installed' % (name, version, wheel)})
    resolved = {item['metadata']['name']: item['metadata']['version'] for item in installed}
    lines = sorted('%s==%s %s' % (item['metadata']['name'].lower(), item['metadata']['version'], ((item.get('download_info') or {}).get('archive_info') or {}).get('hash', '')) for item in installed)
    return resolved, '\n'.join(lines)


def zipped(root):
    """The tree under root as a zip file, its unpacked size and the hash of its files; links are left out.

    The hash is package-trees.ts's contentHashOf: each file's path and the sha256 of its bytes, in path order.
    """
    files = []
    for directory, _, entries in os.walk(root):
        for entry in entries:
            full = os.path.join(directory, entry)
            if os.path.isfile(full) and not os.path.islink(full):
                files.append((os.path.relpath(full, root), full))
    archive = os.path.join(os.path.dirname(root), 'tree.zip')
    size = 0
    content = hashlib.sha256()
    with zipfile.ZipFile(archive, 'w', zipfile.ZIP_DEFLATED, compresslevel=6) as out:
        for path, full in sorted(files, key=lambda file: file[0].encode('utf-8')):
            with open(full, 'rb') as source:
                data = source.read()
            size += len(data)
            content.update(('%s\n%s\n' % (path, hashlib.sha256(data).hexdigest())).encode('utf-8'))
            out.writestr(zipfile.ZipInfo(path, ZIP_DATE), data, zipfile.ZIP_DEFLATED)
    return archive, size, content.hexdigest()


def store(s3, bucket, key, archive):
    from botocore.exceptions import ClientError
    try:
        s3.head_object(Bucket=bucket, Key=key)
        return False
    except ClientError as error:
        if error.response.get('Error', {}).get('Code') not in ('404', 'NoSuchKey', 'NotFound'):
            raise
    with open(archive, 'rb') as body:
        s3.put_object(Bucket=bucket, Key=key, Body=body, ContentType='application/zip')
    return True


def install(request, s3, bucket, timeout):
    work = tempfile.mkdtemp(prefix='install-')
    try:
        os.makedirs(os.path.join(work, 'tmp'))
        with open(os.path.join(work, 'requirements.txt'), 'w', encoding='utf-8') as requirements:
            requirements.write('\n'.join(request['declared']) + '\n')
        run_pip(work, request, timeout)
        resolved, lock = locked(work)
        os.makedirs(os.path.join(work, 'tree', 'python'), exist_ok=True)
        archive, size, content = zipped(os.path.join(work, 'tree'))
        if size > request['maxBytes']:
            return {'ok': False, 'kind': 'tooLarge', 'sizeBytes': size}
        # Named by what was installed, not only by the lock's claims (package-trees.ts, treeHashOf).
        key = 'script-deps/%s.zip' % hashlib.sha256(('%s\n%s\n%s' % (request['runtime'], lock, content)).encode('utf-8')).hexdigest()
        added = store(s3, bucket, key, archive)
        return {'ok': True, 'resolved': resolved, 'lock': lock, 'key': key, 'sizeBytes': size, 'added': added}
    except Refusal as refusal:
        return refusal.answer
    finally:
        shutil.rmtree(work, ignore_errors=True)


_s3 = None


def handler(event, context):
    global _s3
    if _s3 is None:
        import boto3  # the Python runtime's own SDK
        _s3 = boto3.client('s3')
    return install(event, _s3, os.environ['SCRIPT_PACKAGES_BUCKET'], float(os.environ.get('PACKAGE_INSTALL_TIMEOUT_SECONDS', '20')))
