import type { Argv } from 'yargs';
import { type ArgsOf, type StampedeCommand, profileOptions } from '../command.ts';
import { ExitCode } from '../exit-codes.ts';
import { numberOption, optionError } from '../options.ts';
import { BARRIER_DEFAULTS, barrierTimes, MAX_SEGMENTS } from '../segment-options.ts';

const builder = (yargs: Argv) =>
  profileOptions(yargs)
    .option('segments', { type: 'string', demandOption: true, describe: `pods, each sending one segment of the run (1–${MAX_SEGMENTS})` })
    .option('image', { type: 'string', demandOption: true, describe: 'the stampede container image (docker build -t IMAGE . with the package’s Dockerfile)' })
    .option('target', { type: 'string', describe: 'where the pods send the traffic (default: the profile’s target); its hosts are allowed in the pods' })
    .option('barrier-timeout', {
      type: 'string',
      default: BARRIER_DEFAULTS.timeout,
      describe: 'how long a pod waits at the barrier for the others before none starts (exit 3)',
    })
    .option('barrier-lead', { type: 'string', default: BARRIER_DEFAULTS.lead, describe: 'the shared start, this long after the last pod arrived at the barrier' })
    .option('name', { type: 'string', describe: 'the Job’s name (default stampede-<profile name>)' })
    .option('results-claim', { type: 'string', describe: 'an existing ReadWriteMany PersistentVolumeClaim for the segments’ folders (default: the manifest makes one)' })
    .option('storage', { type: 'string', default: '1Gi', describe: 'size of the results claim the manifest makes' })
    .option('storage-class', { type: 'string', describe: 'storage class of the results claim the manifest makes: one that offers ReadWriteMany (default: the cluster’s)' });

export const k8s: StampedeCommand<ArgsOf<typeof builder>> = {
  command: 'k8s <profile>',
  describe: 'print a Kubernetes Indexed Job that runs the profile as N segments on N pods, started together at a barrier, for stampede merge',
  example: ['stampede k8s profiles/steady-peak.yaml --segments 4 --image registry.example/stampede:0.1.0 > job.yaml', 'four pods, started together whenever it is applied'],
  builder,
  async run(args) {
    const [input, job, { renderJobManifest }, { selfContainedProfile }, files, secrets, { jobLifetime }, { protocolOf, targetHosts }, { isLoopbackHost }, { requireTopologyFor }] =
      await Promise.all([
        import('../input.ts'),
        import('../../k8s/job.ts'),
        import('../../k8s/render.ts'),
        import('../../k8s/profile-text.ts'),
        import('../../k8s/carried-files.ts'),
        import('../../k8s/pod-secrets.ts'),
        import('../../k8s/lifetime.ts'),
        import('../../profile/protocols/registry.ts'),
        import('../../profile/target.ts'),
        import('../../profile/topology-required.ts'),
      ]);
    const segments = numberOption('--segments', args.segments, { min: 1, max: MAX_SEGMENTS, integer: true, example: '4' });
    const barrier = barrierTimes({ timeout: args.barrierTimeout, lead: args.barrierLead }, input.durationOption);
    const target = input.targetOption(args.target);
    const profile = await input.loadProfileWithSample(args.profile, args.set, undefined);
    const name = args.name ?? job.jobName(profile.name);
    if (!/^[a-z0-9]([-a-z0-9]{0,50}[a-z0-9])?$/.test(name))
      throw optionError('--name', `${JSON.stringify(name)} is not a Kubernetes name`, 'lowercase letters, digits and dashes, at most 52');
    const { target: sendTo } = input.effectiveTarget(target, profile);
    requireTopologyFor(profile, sendTo);
    const profileText = selfContainedProfile(profile);
    secrets.refuseLiteralCredentials(profile, profileText);
    const carried = files.carriedFiles(profile, protocolOf(sendTo).realism.encrypted?.(sendTo) === true);
    const podSecrets = secrets.podSecrets(profile, args.set, job.objectNames(name).secrets);
    const spec = {
      name,
      segments,
      image: args.image,
      profileData: files.configMapData(profile, profileText, carried),
      files: carried,
      secrets: podSecrets,
      target: target?.text,
      remoteHosts: targetHosts(sendTo).filter((host) => !isLoopbackHost(host)),
      resultsClaim: args.resultsClaim,
      storage: args.storage,
      storageClass: args.storageClass,
      barrier: { timeout: args.barrierTimeout, lead: args.barrierLead },
      lifetime: jobLifetime(profile, barrier),
    };
    const manifest = job.buildJobManifest(spec);
    const claimName = args.resultsClaim ?? job.objectNames(name).claim;
    process.stdout.write(renderJobManifest(manifest, { name, segments, files: carried, secretKeys: podSecrets.keys, claimName, barrier: spec.barrier }));
    return ExitCode.Ok;
  },
};
