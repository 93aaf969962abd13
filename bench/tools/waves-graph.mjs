// Builds the import graph with waves (the built package) and writes its edges as JSON.
import { writeFileSync } from 'node:fs';
import { buildRepoGraph } from '../../packages/planner/dist/index.js';

const [root, out, mode] = process.argv.slice(2);
const graph = await buildRepoGraph(root, { cache: mode === 'warm' });
writeFileSync(out, JSON.stringify({ nodes: graph.nodes(), edges: graph.mapEdges((_e, _a, from, to) => [from, to]) }));
