import type { Argv } from 'yargs';
import { type ArgsOf, type StampedeCommand, profileOptions } from '../command.ts';
import { ExitCode } from '../exit-codes.ts';
import { numberOption, optionError } from '../options.ts';
import { MAX_SEGMENTS } from '../segment-options.ts';

const builder = (yargs: Argv) =>
  profileOptions(yargs)
    .option('segments', { type: 'string', demandOption: true, describe: `pods, each sending one segment of the run (1–${MAX_SEGMENTS})` })
    .option('image', { type: 'string', demandOption: true, describe: 'the stampede container image (docker build -t IMAGE . with the package’s Dockerfile)' })
    .option('target', { type: 'string', describe: 'where the pods send the traffic (default: the profile’s target); its hosts are allowed in the pods' })
    .option('start-in', { type: 'string', default: '60s', describe: 'the shared start, this long after printing: apply the manifest before then' })
    .option('name', { type: 'string', describe: 'the Job’s name (default stampede-<profile name>)' })
    .option('results-claim', { type: 'string', describe: 'an existing ReadWriteMany PersistentVolumeClaim for the segments’ folders (default: the manifest makes one)' })
    .option('storage', { type: 'string', default: '1Gi', describe: 'size of the results claim the manifest makes' });

export const k8s: StampedeCommand<ArgsOf<typeof builder>> = {
  command: 'k8s <profile>',
  describe: 'print a Kubernetes Indexed Job that runs the profile as N segments on N pods, for stampede merge',
  example: ['stampede k8s profiles/steady-peak.yaml --segments 4 --image registry.example/stampede:0.1.0 > job.yaml', 'four pods, one shared start'],
  builder,
  async run(args) {
    const [input, { buildJobManifest, jobName, renderJobManifest }, { selfContainedProfile }, { parseTarget, targetHosts, isLoopbackHost }] = await Promise.all([
      import('../input.ts'),
      import('../../k8s/job.ts'),
      import('../../k8s/profile-text.ts'),
      import('../../profile/target.ts'),
    ]);
    const segments = numberOption('--segments', args.segments, { min: 1, max: MAX_SEGMENTS, integer: true, example: '4' });
    const startInUs = input.durationOption('--start-in', args.startIn);
    const target = input.targetOption(args.target);
    const profile = await input.loadProfileWithSample(args.profile, args.set, undefined);
    const name = args.name ?? jobName(profile.name);
    if (!/^[a-z0-9]([-a-z0-9]{0,50}[a-z0-9])?$/.test(name))
      throw optionError('--name', `${JSON.stringify(name)} is not a Kubernetes name`, 'lowercase letters, digits and dashes, at most 52');
    const sendTo = target ?? profile.target;
    const spec = {
      name,
      segments,
      image: args.image,
      startAt: new Date(Date.now() + startInUs / 1000).toISOString().replace(/\.\d+Z$/, 'Z'),
      profileYaml: selfContainedProfile(profile),
      overrides: args.set,
      target,
      remoteHosts: targetHosts(parseTarget(sendTo)).filter((host) => !isLoopbackHost(host)),
      resultsClaim: args.resultsClaim,
      storage: args.storage,
    };
    process.stdout.write(renderJobManifest(buildJobManifest(spec), spec, args.startIn));
    return ExitCode.Ok;
  },
};
