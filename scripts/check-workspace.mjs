// Every folder under libs/ is a library that the build, the type checker, jest and the layer rules all know about:
// nest-cli.json lists it, tsconfig.json and jest.config.js map @vectorstore/<name>, and eslint.config.mjs says which
// libraries it may import. Part of `npm run lint`.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import ts from 'typescript';
import { LIBRARY_DEPENDENCIES } from '../eslint.config.mjs';

const require = createRequire(import.meta.url);
const root = join(import.meta.dirname, '..');
const libraries = readdirSync(join(root, 'libs'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

const nest = JSON.parse(readFileSync(join(root, 'nest-cli.json'), 'utf8'));
// tsconfig.json may hold comments: read it the way tsc does.
const tsconfig = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
if (tsconfig.error) throw new Error(ts.flattenDiagnosticMessageText(tsconfig.error.messageText, '\n'));
const paths = tsconfig.config.compilerOptions.paths;
const jestMappers = require('../jest.config.js').projects.flatMap((project) => Object.keys(project.moduleNameMapper));

const problems = [];
for (const name of libraries) {
  const project = nest.projects[name];
  if (project?.type !== 'library' || project.sourceRoot !== `libs/${name}/src`)
    problems.push(`nest-cli.json: no library project "${name}" with sourceRoot libs/${name}/src`);
  if (!paths[`@vectorstore/${name}`]) problems.push(`tsconfig.json: no path for @vectorstore/${name}`);
  if (!jestMappers.some((pattern) => new RegExp(pattern).test(`@vectorstore/${name}`)))
    problems.push(`jest.config.js: no moduleNameMapper for @vectorstore/${name}`);
  if (!LIBRARY_DEPENDENCIES[name]) problems.push(`eslint.config.mjs: LIBRARY_DEPENDENCIES has no entry for ${name}`);
}
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(
  `workspace: ${libraries.length} libraries listed in nest-cli.json, tsconfig.json, jest.config.js and the layer rules`,
);
