/*
 * The architecture, as rules `npm test` enforces (npm run lint:deps). Stages import only the
 * stages before them in the pipeline: profile → schedule → model / recorder → generator → driver
 * → analysis → report / run-folder / interop → pipeline → metrics / qualify / sweep → cli. Nothing imports the CLI; only
 * the CLI (and the measuring code named below) may reach the process itself.
 */
/** Below every stage: src/files opens the files a command is given (regular files under a size bound), for every stage that reads one. */
const FOUNDATION = ['files'];
const stage = (name, mayImport) => ({
  name: `${name}-imports-only-earlier-stages`,
  comment: `src/${name} may import only ${mayImport.length > 0 ? mayImport.join(', ') : 'itself'} (and ${FOUNDATION.join(', ')})`,
  severity: 'error',
  from: { path: `^src/${name}/` },
  to: { path: '^src/', pathNot: `^src/(${[name, ...FOUNDATION, ...mayImport].join('|')})/` },
});

module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycle',
      comment:
        'a cycle through two folders makes two stages one. Within a folder, components may name each other\'s types (TypeScript 7 ships no compiler API, and the swc parser cannot tell type-only imports apart)',
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: { circular: true, pathNot: '^src/$1/' },
    },
    {
      name: 'no-file-cycle-in-model',
      comment: 'the model is layered file by file (engine and hash, core, components, assembly): a file of it that reaches itself again through its imports, types included, ties layers into one',
      severity: 'error',
      from: { path: '^src/model/' },
      to: { circular: true },
    },
    {
      name: 'model-core-below-components',
      comment: 'the core (records, call flow, connections, the wiring kinds build against) names interfaces the components implement, never a component; the engine and hashes name neither',
      severity: 'error',
      from: { path: '^src/model/(core|engine|hash)/' },
      to: { path: '^src/model/(components|assembly)/|^src/model/model\\.ts$' },
    },
    {
      name: 'model-components-below-assembly',
      comment: 'components build against the core; the assembly (build order, timeline) and the model put them together',
      severity: 'error',
      from: { path: '^src/model/components/' },
      to: { path: '^src/model/assembly/|^src/model/model\\.ts$' },
    },
    stage('files', []),
    stage('profile', []),
    stage('workers', []),
    stage('schedule', ['profile']),
    stage('model', ['profile', 'schedule', 'recorder']),
    stage('recorder', ['profile', 'schedule']),
    stage('generator', ['recorder', 'profile']),
    stage('driver', ['profile', 'schedule', 'model', 'recorder', 'generator', 'workers']),
    stage('analysis', ['profile', 'schedule', 'recorder']),
    stage('report', ['analysis', 'recorder', 'profile', 'schedule']),
    stage('run-folder', ['analysis', 'recorder', 'profile']),
    stage('pipeline', ['profile', 'schedule', 'model', 'recorder', 'generator', 'driver', 'analysis', 'report', 'run-folder']),
    // A run split across hosts, joined again: reads segment folders, then the pipeline's own result, analysis and reports.
    stage('merge', ['pipeline', 'profile', 'schedule', 'recorder', 'analysis', 'report', 'run-folder']),
    // The start barrier of a run's segments: files in a folder they share (the run folder's writer makes it).
    stage('barrier', ['run-folder']),
    // The Kubernetes Job that runs a profile's segments: a manifest built from the profile (and its length, from its schedule), nothing sent.
    stage('k8s', ['profile', 'schedule']),
    // The Prometheus exporter reads the pipeline's per-interval snapshots; only the CLI starts it.
    stage('metrics', ['pipeline', 'recorder']),
    stage('qualify', ['pipeline', 'analysis', 'run-folder', 'profile', 'schedule', 'recorder']),
    // Calibration fits a topology to a real qualification, then qualifies the model with it.
    stage('calibrate', ['qualify', 'pipeline', 'analysis', 'report', 'run-folder', 'profile', 'schedule', 'recorder']),
    stage('sweep', ['pipeline', 'driver', 'model', 'analysis', 'profile', 'schedule', 'recorder', 'workers']),
    // Other load generators' formats: a profile exported (its schedule's curves and laws), a script's options judged by the realism flags.
    stage('interop', ['profile', 'schedule', 'analysis']),
    // Production request traces: read streamed, their statistics; what a profile needs to reproduce them.
    stage('trace', ['profile', 'schedule']),
    // The reference service is a target: it speaks memcached with the driver's own codec.
    stage('serve', ['profile', 'driver']),
    {
      name: 'only-cli-reaches-the-process',
      comment: 'the process (argv, env, stdout, signals, exit) belongs to the CLI; measuring code (the generator, the drivers, the reference service\'s stats) may read CPU and schedule ticks',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(cli|generator|driver|serve)/' },
      to: { path: '^node:process$|^process$' },
    },
    {
      name: 'no-orphans',
      comment: 'a module nothing imports is dead code (entry points, worker bootstraps and the code the k6 sandbox reads as text and evaluates excepted)',
      severity: 'error',
      from: { orphan: true, path: '^src/', pathNot: ['^src/index\\.ts$', '^src/cli/main\\.ts$', 'worker-entry\\.ts$', 'bootstrap\\.mjs$', '\\.sandbox\\.js$', '\\.d\\.ts$'] },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // TypeScript 7 ships no compiler API, so dependency-cruiser reads the sources with swc.
    parser: 'swc',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js', '.mjs'] },
    exclude: { path: '^src/.*\\.d\\.ts$' },
  },
};
