// lintScript: missing async handler, invalid adapter operations, event.data field access checked
// against eventType and scriptInputSchema, with lines and suggestions.
import type { DeclaredDependencies } from '../../model.js';
import type { RuntimeLabel } from '../../model.js';
import type { LintRequest } from '../../schemas.js';
import type { CodeFacts } from './code-facts.js';
import { eventFieldProblem } from './event-shape.js';
import { suggestedDependencies } from './imports.js';

export interface LintIssue {
  severity: 'error' | 'warning';
  message: string;
  line: number;
  suggestion: string;
}

export interface LintReport {
  valid: boolean;
  issueCount: number;
  issues: LintIssue[];
  callAdapterCallsCount: number;
  mirraSDKCallsCount: number;
  /** Imported packages not declared: the `dependencies` to give createScript or createVersion. */
  suggestedDependencies?: DeclaredDependencies;
}

export interface LintContext {
  /** The script's `config.allowedResources`, when the request names a script. */
  allowedResources?: string[];
  /** Method names of the caller's installed resource `name`; undefined when no such installation exists. */
  methodsOf(name: string): Promise<string[] | undefined>;
  /** Python's own reading of Python code; undefined where no Python is at hand. */
  pythonFacts(code: string): Promise<CodeFacts | undefined>;
  /** The script's `config.durable`: its runs replay their code when they resume. */
  durable?: boolean;
}

/** Without an explicit runtime: Python when a top-level `def handler` is there. */
export const detectRuntime = (code: string): RuntimeLabel => (/^(async\s+)?def\s+handler\s*\(/m.test(code) ? 'python3.11' : 'nodejs18');

const handlerExample: Record<RuntimeLabel, string> = {
  nodejs18: 'export async function handler(event, context) { ... }',
  'python3.11': 'async def handler(event, context): ...',
};

async function resourceIssues(facts: CodeFacts, context: LintContext): Promise<LintIssue[]> {
  const issues: LintIssue[] = [];
  const methods = new Map<string, Promise<string[] | undefined>>();
  for (const call of facts.resourceCalls) {
    if (call.name === undefined) {
      issues.push({
        severity: 'warning',
        line: call.line,
        message: `resources[...].${call.method}() names its resource at run time and cannot be checked`,
        suggestion: 'use a literal name, e.g. resources["my-api"]',
      });
      continue;
    }
    if (context.allowedResources && !context.allowedResources.includes(call.name)) {
      issues.push({
        severity: 'error',
        line: call.line,
        message: `resource ${call.name} is not in the script's config.allowedResources`,
        suggestion: `add "${call.name}" to config.allowedResources`,
      });
      continue;
    }
    if (!methods.has(call.name)) methods.set(call.name, context.methodsOf(call.name));
    const known = await methods.get(call.name)!;
    if (!known)
      issues.push({
        severity: 'error',
        line: call.line,
        message: `no installed resource is named ${call.name}`,
        suggestion: `install the resource, or call it by its installed name or resource id`,
      });
    else if (!known.includes(call.method)) {
      issues.push({
        severity: 'error',
        line: call.line,
        message: `resource ${call.name} has no method ${call.method}`,
        suggestion: known.length ? `use one of: ${known.join(', ')}` : 'this resource has no callable methods',
      });
    }
  }
  return issues;
}

function dataIssues(facts: CodeFacts, request: LintRequest): LintIssue[] {
  const schema = request.scriptInputSchema;
  const issues: LintIssue[] = [];
  for (const access of facts.dataAccesses) {
    const field = access.path[0]!;
    if (schema) {
      if (!(field in schema)) {
        const fields = Object.keys(schema);
        issues.push({
          severity: 'error',
          line: access.line,
          message: `event.data.${field} is not in scriptInputSchema`,
          suggestion: fields.length ? `read one of ${fields.join(', ')}, or add ${field} to scriptInputSchema` : `add ${field} to scriptInputSchema`,
        });
      }
      continue;
    }
    const problem = request.eventType && eventFieldProblem(request.eventType, access.path);
    if (problem)
      issues.push({
        severity: 'warning',
        line: access.line,
        message: `event.data.${access.path.join('.')}: ${problem}`,
        suggestion: 'check the field name against the fields of this event type, or give a scriptInputSchema',
      });
  }
  return issues;
}

/** A durable script's clock and random reads outside steps: each differs when a resumed run replays the code. */
const determinismIssues = (facts: CodeFacts): LintIssue[] =>
  facts.unsteadyCalls.map((call) => ({
    severity: 'warning',
    line: call.line,
    message: `${call.call} outside a step: a resumed run replays the code and gets a different value`,
    suggestion: `read it inside context.step(...), whose result is journaled and replayed`,
  }));

/** The code as the linter reads it: python's own parser for Python, the JavaScript parser (loaded on first use) else. */
const factsOf = async (code: string, runtime: RuntimeLabel, pythonFacts: LintContext['pythonFacts']) =>
  runtime === 'python3.11' ? pythonFacts(code) : (await import('./code-facts.js')).javascriptFacts(code);

/** The determinism warnings of a durable script's code, as createScript and deployScript return them (`warnings`). */
export async function durableWarnings(code: string, runtime: RuntimeLabel, pythonFacts: LintContext['pythonFacts']): Promise<Omit<LintIssue, 'severity'>[]> {
  const facts = await factsOf(code, runtime, pythonFacts);
  if (!facts || facts.syntaxError) return [];
  return determinismIssues(facts).map(({ severity: _severity, ...warning }) => warning);
}

export async function lintScript(request: LintRequest, context: LintContext): Promise<LintReport> {
  const runtime = request.runtime ?? detectRuntime(request.code);
  const facts = await factsOf(request.code, runtime, context.pythonFacts);
  const issues: LintIssue[] = [];
  if (!facts) {
    issues.push({
      severity: 'warning',
      line: 1,
      message: 'python3 is not available here, so the code was not read',
      suggestion: 'lint Python scripts where python3 is installed (local mode)',
    });
  } else if (facts.syntaxError) {
    issues.push({
      severity: 'error',
      line: facts.syntaxError.line,
      message: `syntax error: ${facts.syntaxError.message}`,
      suggestion: `fix the syntax at line ${facts.syntaxError.line}, column ${facts.syntaxError.column}`,
    });
  } else {
    if (!facts.handler)
      issues.push({
        severity: 'error',
        line: 1,
        message: 'the script has no handler(event, context) function',
        suggestion: `wrap the code in ${handlerExample[runtime]}`,
      });
    else if (!facts.handler.isAsync && runtime === 'nodejs18') {
      issues.push({
        severity: 'warning',
        line: facts.handler.line,
        message: 'the handler is not async',
        suggestion: `declare it as ${handlerExample[runtime]}`,
      });
    }
    issues.push(...(await resourceIssues(facts, context)), ...dataIssues(facts, request));
    if (context.durable) issues.push(...determinismIssues(facts));
  }
  const suggested = facts && !facts.syntaxError ? suggestedDependencies(runtime, facts, request.dependencies) : undefined;
  const unique = [...new Map(issues.map((issue) => [`${issue.line}|${issue.severity}|${issue.message}`, issue])).values()].sort((a, b) => a.line - b.line);
  return {
    valid: !unique.some((issue) => issue.severity === 'error'),
    issueCount: unique.length,
    issues: unique,
    callAdapterCallsCount: facts?.resourceCalls.length ?? 0,
    mirraSDKCallsCount: facts?.sdkCalls.length ?? 0,
    ...(suggested && { suggestedDependencies: suggested }),
  };
}
