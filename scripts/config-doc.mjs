// docs/configuration.md, generated from src/config/env.validation.ts: one row per variable of
// `EnvironmentVariables`, with its default (the property's initialiser), the values it accepts (its
// class-validator decorators) and its meaning (the property's doc comment, which every variable must have).
//
//   npm run config:doc                      writes docs/configuration.md
//   node scripts/config-doc.mjs --check     fails, naming what differs, when the committed file is stale
//                                           (run by `npm run lint`, so by CI)
//
// It reads the TypeScript source with the compiler's parser: no build is needed.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ts = createRequire(join(root, 'package.json'))('typescript');
const SOURCE = 'src/config/env.validation.ts';
const OUTPUT = 'docs/configuration.md';

/** The variables of `EnvironmentVariables`, in the order the class declares them. */
export function readVariables(text) {
  const file = ts.createSourceFile(SOURCE, text, ts.ScriptTarget.Latest, true);
  const constants = new Map();
  let declared;
  file.forEachChild((node) => {
    if (ts.isVariableStatement(node)) {
      for (const declaration of node.declarationList.declarations) {
        let value = declaration.initializer;
        while (value && (ts.isAsExpression(value) || ts.isParenthesizedExpression(value))) value = value.expression;
        if (value && ts.isArrayLiteralExpression(value)) constants.set(declaration.name.getText(file), value);
      }
    }
    if (ts.isClassDeclaration(node) && node.name?.text === 'EnvironmentVariables') declared = node;
  });
  if (!declared) throw new Error(`${SOURCE}: no class EnvironmentVariables`);
  return declared.members.filter(ts.isPropertyDeclaration).map((property) => {
    const name = property.name.getText(file);
    const comment = ts
      .getJSDocCommentsAndTags(property)
      .filter(ts.isJSDoc)
      .map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? '')
      .join(' ');
    const decorators = (ts.getDecorators(property) ?? []).map((decorator) => {
      const call = decorator.expression;
      return ts.isCallExpression(call)
        ? { name: call.expression.getText(file), args: call.arguments }
        : { name: call.getText(file), args: [] };
    });
    return {
      name,
      description: comment.replace(/\s+/g, ' ').trim(),
      defaultValue: property.initializer ? literalValue(property.initializer, file) : undefined,
      rule: ruleOf(name, decorators, constants, file),
    };
  });
}

/** The initialiser's value when it is a literal expression (`5 * 1024 ** 3`, `'info'`), else its text. */
function literalValue(node, file) {
  const text = node.getText(file);
  if (text === 'undefined') return undefined;
  try {
    return new Function(`"use strict"; return (${text});`)();
  } catch {
    return text;
  }
}

function ruleOf(name, decorators, constants, file) {
  const parts = [];
  const argument = (decorator, index = 0) => decorator.args[index];
  const number = (node) => literalValue(node, file);
  const min = decorators.find((decorator) => decorator.name === 'Min');
  const max = decorators.find((decorator) => decorator.name === 'Max');
  for (const decorator of decorators) {
    switch (decorator.name) {
      case 'IsOptional':
      case 'Min':
      case 'Max':
        break;
      case 'IsInt': {
        const low = min && number(argument(min));
        const high = max && number(argument(max));
        if (low !== undefined && high !== undefined) parts.push(`an integer from ${low} to ${high}`);
        else if (low !== undefined) parts.push(`an integer, ${low} or more`);
        else parts.push('an integer');
        break;
      }
      case 'IsString':
        if (!decorators.some((other) => other.name === 'MinLength')) parts.push('text');
        break;
      case 'MinLength':
        parts.push(`at least ${number(argument(decorator))} characters`);
        break;
      case 'IsIn': {
        let values = argument(decorator);
        if (ts.isIdentifier(values)) values = constants.get(values.text);
        if (!values || !ts.isArrayLiteralExpression(values))
          throw new Error(`${SOURCE}: ${name}'s @IsIn lists no values this script can read`);
        parts.push(`one of ${values.elements.map((element) => `\`${literalValue(element, file)}\``).join(', ')}`);
        break;
      }
      case 'Matches': {
        const options = argument(decorator, 1);
        const message =
          options && ts.isObjectLiteralExpression(options)
            ? options.properties.find((property) => property.name?.getText(file) === 'message')
            : undefined;
        if (!message) throw new Error(`${SOURCE}: ${name}'s @Matches has no message to describe it with`);
        parts.push(literalValue(message.initializer, file).replace(new RegExp(`^${name} `), ''));
        break;
      }
      default:
        throw new Error(
          `${SOURCE}: ${name}'s @${decorator.name} is not one this script knows how to describe: teach it in scripts/config-doc.mjs`,
        );
    }
  }
  return parts.join('; ');
}

function shownDefault(value) {
  if (value === undefined) return 'unset';
  if (value === '') return 'empty';
  return `\`${value}\``;
}

const cell = (text) => text.replace(/\|/g, '\\|');

/** The whole document. */
export function renderDocument(variables) {
  const missing = variables.filter((variable) => !variable.description).map((variable) => variable.name);
  if (missing.length > 0)
    throw new Error(
      `${SOURCE}: give these variables a doc comment, their description in ${OUTPUT}: ${missing.join(', ')}`,
    );
  const rows = variables.map(
    (variable) =>
      `| \`${variable.name}\` | ${cell(shownDefault(variable.defaultValue))} | ${cell(variable.rule)} | ${cell(variable.description)} |`,
  );
  return [
    '# Configuration',
    '',
    `<!-- Generated by \`npm run config:doc\` from ${SOURCE}: edit the comments there, not this file. -->`,
    '',
    'Every variable is read from the environment, or from a `.env` file in the working directory (a',
    'variable set in the environment wins; `.env.example` lists every one with its default). All are',
    'optional in development. Each is validated at start-up: a wrong value stops the service with a',
    'message that names the variable. `npm run lint` fails while this table is stale.',
    '',
    '| Variable | Default | Accepted | Meaning |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const expected = renderDocument(readVariables(readFileSync(join(root, SOURCE), 'utf8')));
  if (process.argv.includes('--check')) {
    let committed = '';
    try {
      committed = readFileSync(join(root, OUTPUT), 'utf8');
    } catch {
      // Missing: stale.
    }
    if (committed !== expected) {
      const have = new Set(committed.split('\n'));
      const differing = expected.split('\n').filter((line) => !have.has(line));
      console.error(
        `${OUTPUT} is stale: run npm run config:doc and commit it. Lines it lacks:\n${differing.map((line) => `  ${line}`).join('\n')}`,
      );
      process.exit(1);
    }
    console.log(`${OUTPUT}: up to date with ${SOURCE}`);
  } else {
    writeFileSync(join(root, OUTPUT), expected);
    console.log(`${OUTPUT}: written from ${SOURCE}`);
  }
}
