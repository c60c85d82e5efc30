// Part of the TemplateBuilder port (ports.ts): what every builder checks in a checked-out repository, template.json
// where templatePath says, valid, and paths (templatePath, outputDirectory, every output file) that stay inside the
// checkout even through symlinks, and the error a build is refused with.
import { lstat, readFile, readdir, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { fieldProblems } from './customization.js';
import { type TemplateManifest, TemplateManifest as ManifestSchema } from './schemas.js';

/** A build refused for a reason its author can act on; the message is the build's `reason`. */
export class BuildFailure extends Error {}

const maxManifestBytes = 256 * 1024;
export const outputLimits = { files: 10_000, bytes: 200 * 1024 * 1024 };

const inside = (root: string, path: string) => path === root || path.startsWith(root + sep);

/** `path` resolved through every symlink; refused when it leaves `root` or does not exist. */
async function resolveInside(root: string, path: string, what: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(path);
  } catch {
    throw new BuildFailure(`${what} ${relative(root, path) || '.'} does not exist in the commit`);
  }
  if (!inside(root, real)) throw new BuildFailure(`${what} ${relative(root, path)} leads outside the repository checkout`);
  return real;
}

export async function readManifest(checkout: string, templatePath: string): Promise<{ templateDir: string; manifest: TemplateManifest }> {
  const root = await realpath(checkout);
  const templateDir = await resolveInside(root, join(root, templatePath), 'templatePath');
  if (!(await stat(templateDir)).isDirectory()) throw new BuildFailure(`templatePath ${templatePath} is not a folder`);
  const file = await resolveInside(root, join(templateDir, 'template.json'), 'template.json at');
  const info = await stat(file);
  if (!info.isFile()) throw new BuildFailure('template.json is not a file');
  if (info.size > maxManifestBytes) throw new BuildFailure(`template.json is ${info.size} bytes; the limit is ${maxManifestBytes}`);
  return { templateDir, manifest: parseManifest(await readFile(file, 'utf8')) };
}

/** template.json's text checked: JSON, the schema, valid customization defaults. */
export function parseManifest(text: string): TemplateManifest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new BuildFailure(`template.json is not valid JSON: ${(error as Error).message}`);
  }
  const result = ManifestSchema.safeParse(parsed);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new BuildFailure(`template.json ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  const problem = fieldProblems(result.data.customization);
  if (problem) throw new BuildFailure(`template.json customization: ${problem}`);
  return result.data;
}

export interface OutputFile {
  /** Path under the output directory, `/`-separated. */
  path: string;
  /** Where to read it (symlinks resolved, checked to stay in the checkout). */
  source: string;
  bytes: number;
}

/** Every file the build wrote under outputDirectory; refused when empty, too big, or reaching outside the checkout. */
export async function collectOutput(checkout: string, templateDir: string, outputDirectory: string): Promise<OutputFile[]> {
  const root = await realpath(checkout);
  const outputDir = await resolveInside(root, join(templateDir, outputDirectory), 'outputDirectory');
  if (!(await stat(outputDir)).isDirectory()) throw new BuildFailure(`outputDirectory ${outputDirectory} is not a folder`);
  const files: OutputFile[] = [];
  let bytes = 0;
  async function walk(dir: string, prefix: string, depth = 0) {
    // Symlinked folders can loop; a real site is never this deep.
    if (depth > 32) throw new BuildFailure(`the output nests folders deeper than 32 levels at ${prefix}`);
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = prefix ? `${prefix}/${entry.name}` : entry.name;
      let source = join(dir, entry.name);
      let info = await lstat(source);
      if (info.isSymbolicLink()) {
        source = await resolveInside(root, source, `output file ${path}: its symlink`);
        info = await stat(source);
      }
      if (info.isDirectory()) {
        await walk(source, path, depth + 1);
      } else if (info.isFile()) {
        bytes += info.size;
        files.push({ path, source, bytes: info.size });
        if (files.length > outputLimits.files) throw new BuildFailure(`the output has more than ${outputLimits.files} files`);
        if (bytes > outputLimits.bytes) throw new BuildFailure(`the output is larger than ${outputLimits.bytes} bytes`);
      }
    }
  }
  await walk(outputDir, '');
  if (!files.length) throw new BuildFailure(`outputDirectory ${outputDirectory} is empty after the build`);
  return files;
}
