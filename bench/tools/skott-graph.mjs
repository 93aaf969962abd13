// skott has no JSON output on its command line: this runs its API and writes its edges.
import { writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import skott from 'skott';

const [root, out] = process.argv.slice(2);
process.chdir(root);
const tsconfig = existsSync(path.join(root, 'tsconfig.json')) ? 'tsconfig.json' : undefined;
const { getStructure } = await skott({
  cwd: root,
  dependencyTracking: { thirdParty: false, builtin: false, typeOnly: true },
  // skott knows no .mts/.cts.
  fileExtensions: ['.ts', '.tsx', '.js', '.jsx', '.mjs', '.cjs'],
  ...(tsconfig ? { tsConfigPath: tsconfig } : {}),
  verbose: false,
});
const { graph } = getStructure();
const edges = [];
for (const [from, node] of Object.entries(graph)) for (const to of node.adjacentTo) edges.push([from, to]);
writeFileSync(out, JSON.stringify({ edges }));
