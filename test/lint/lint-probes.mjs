// Lints source texts as if they were files at the given paths, with the project's eslint config minus the rules that
// need type information (nothing is written to disk). Reads [{ filePath, code }] as JSON on stdin and prints
// [{ filePath, messages: [{ ruleId, line, message }] }]. Used by layer-rules.spec.ts.
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const probes = JSON.parse(Buffer.concat(chunks).toString('utf8'));

const eslint = new ESLint({
  overrideConfig: [
    { files: ['**/*.ts'], languageOptions: { parserOptions: { projectService: false, project: null } } },
    { files: ['**/*.ts'], ...tseslint.configs.disableTypeChecked },
  ],
});
const results = [];
for (const { filePath, code } of probes) {
  const [result] = await eslint.lintText(code, { filePath, warnIgnored: true });
  results.push({
    filePath,
    messages: result.messages.map(({ ruleId, line, message }) => ({ ruleId, line, message })),
  });
}
process.stdout.write(JSON.stringify(results));
