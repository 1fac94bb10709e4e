import t from 'tap';
import { loadConfig, ROLE_NAMES } from '../../src/config/env.js';
import { dockerStages, k8sManifests, schemaProblems, stageEnv, unknownFieldProblems, type K8sObject } from './deploy-files.js';

// deploy/k8s/: every object of every manifest validated against its kind's schema
// (kubernetes-models) and for fields the API does not know, then the deployment's own rules:
// one image, one role per Deployment, probes on every container, drain grace for media.

const manifests = k8sManifests();
const objects = manifests.map((m) => m.object);
const named = (kind: string, name: string) => objects.find((o) => o.kind === kind && o.metadata.name === name);
const label = (o: K8sObject) => `${o.kind} ${o.metadata?.name}`;

/* eslint-disable @typescript-eslint/no-explicit-any -- manifests are plain parsed YAML */
type Any = any;

t.test('every object validates against its kind schema', async (t) => {
  t.ok(manifests.length >= 8, `${manifests.length} objects in deploy/k8s`);
  for (const { file, object } of manifests) {
    t.ok(object.apiVersion && object.kind && object.metadata?.name, `${file}: apiVersion, kind and metadata.name`);
    t.same(await schemaProblems(object), [], `${file}: ${label(object)}`);
  }
});

t.test('no field the Kubernetes API does not know', async (t) => {
  // Two broken copies go along to show that the check sees what the schemas let through.
  const deployment = structuredClone(named('Deployment', 'voice-media')) as Any;
  deployment.spec.template.spec.containers[0].readinesProbe = deployment.spec.template.spec.containers[0].readinessProbe;
  const service = structuredClone(named('Service', 'voice-api')) as Any;
  service.spec.selectr = service.spec.selector;
  const problems = unknownFieldProblems([...objects, deployment, service]);
  for (const [i, { file, object }] of manifests.entries()) t.same(problems.get(i) ?? [], [], `${file}: ${label(object)}`);
  t.match(problems.get(objects.length)?.join('\n'), /readinesProbe/, 'a misspelt probe is caught');
  t.match(problems.get(objects.length + 1)?.join('\n'), /selectr/, 'a misspelt selector is caught');
  t.same(problems.get(-1) ?? [], [], 'no other diagnostics');
  // And the schema check itself sees wrong types.
  const wrong = structuredClone(named('Deployment', 'voice-api')) as Any;
  wrong.spec.template.spec.terminationGracePeriodSeconds = '60s';
  t.match((await schemaProblems(wrong)).join(), /terminationGracePeriodSeconds must be integer/);
});

const deployments = objects.filter((o) => o.kind === 'Deployment') as Any[];
const config = named('ConfigMap', 'voice-config') as Any;
const secret = named('Secret', 'voice-secrets') as Any;
const roleOf = (d: Any): string => d.spec.template.spec.containers[0].env?.find((e: Any) => e.name === 'ROLES')?.value;
const ROLE_PORT = { api: 'PORT', media: 'MEDIA_PORT', worker: 'WORKER_HTTP_PORT' } as const;
/** The container's environment as the process sees it: ConfigMap and Secret, then its own env. */
const containerEnv = (c: Any): Record<string, string> => ({
  ...config.data,
  ...secret.stringData,
  ...Object.fromEntries((c.env ?? []).map((e: Any) => [e.name, e.value])),
});

t.test('one Deployment per role, from one image, with settings from the ConfigMap and Secret', async (t) => {
  t.same(deployments.map(roleOf).sort(), [...ROLE_NAMES].sort(), 'api, media, worker');
  t.equal(new Set(deployments.flatMap((d) => d.spec.template.spec.containers.map((c: Any) => c.image))).size, 1, 'one image');
  t.ok(config && secret, 'voice-config and voice-secrets exist');
  t.ok(secret.stringData.KEYRING && secret.stringData.DATABASE_URL, 'KEYRING and DATABASE_URL are in the Secret');
  for (const key of ['KEYRING', 'DATABASE_URL', 'REDIS_URL', 'SMTP_URL']) t.notOk(key in config.data, `${key} is not in the ConfigMap`);
  // The image's own environment (Dockerfile ENV) plus these settings pass the service's startup checks.
  const imageEnv = stageEnv(dockerStages().at(-1)!);
  t.equal(imageEnv.NODE_ENV, 'production');
  t.equal(imageEnv.HOST, '0.0.0.0');
  for (const d of deployments) {
    t.same(d.spec.selector.matchLabels, Object.fromEntries(Object.entries(d.spec.template.metadata.labels).filter(([k]) => k in d.spec.selector.matchLabels)), `${d.metadata.name}: selector matches its pods`);
    for (const c of d.spec.template.spec.containers) {
      t.same(c.envFrom, [{ configMapRef: { name: 'voice-config' } }, { secretRef: { name: 'voice-secrets' } }], `${d.metadata.name}: envFrom`);
      const env = { ...imageEnv, ...containerEnv(c) };
      const loaded = loadConfig(env);
      t.same(loaded.ROLES, [roleOf(d)], `${d.metadata.name}: loadConfig accepts its environment`);
    }
  }
});

t.test('probes and resource requests on every container, on the role port', async (t) => {
  for (const d of deployments) {
    const role = roleOf(d) as keyof typeof ROLE_PORT;
    for (const c of d.spec.template.spec.containers) {
      const where = `${d.metadata.name}/${c.name}`;
      const port = Number(containerEnv(c)[ROLE_PORT[role]]);
      const portOf = (p: string | number) => (typeof p === 'number' ? p : c.ports?.find((x: Any) => x.name === p)?.containerPort);
      t.equal(c.readinessProbe?.httpGet?.path, '/readyz', `${where}: readiness on /readyz`);
      t.equal(c.livenessProbe?.httpGet?.path, '/healthz', `${where}: liveness on /healthz`);
      t.equal(portOf(c.readinessProbe?.httpGet?.port), port, `${where}: readiness on ${ROLE_PORT[role]} (${port})`);
      t.equal(portOf(c.livenessProbe?.httpGet?.port), port, `${where}: liveness on ${ROLE_PORT[role]} (${port})`);
      if (c.startupProbe) t.equal(portOf(c.startupProbe.httpGet?.port), port, `${where}: startup probe on the same port`);
      t.ok(c.resources?.requests?.cpu && c.resources?.requests?.memory, `${where}: cpu and memory requests`);
    }
  }
});

t.test('media drains within its termination grace', async (t) => {
  const media = deployments.find((d) => roleOf(d) === 'media');
  const spec = media.spec.template.spec;
  const c = spec.containers[0];
  const drainMs = Number(containerEnv(c).DRAIN_GRACE_MS ?? loadConfig({}).DRAIN_GRACE_MS);
  const preStop = c.lifecycle?.preStop?.exec?.command;
  const preStopSeconds = preStop?.[0] === 'sleep' ? Number(preStop[1]) : 0;
  const settleMarginSeconds = 10;
  t.ok(
    spec.terminationGracePeriodSeconds > preStopSeconds + drainMs / 1000 + settleMarginSeconds,
    `terminationGracePeriodSeconds ${spec.terminationGracePeriodSeconds} > preStop ${preStopSeconds} s + DRAIN_GRACE_MS ${drainMs / 1000} s + ${settleMarginSeconds} s`,
  );
  t.ok(preStopSeconds > 0, 'a preStop pause lets endpoints drop the pod before SIGTERM');
  const pdb = objects.find((o) => o.kind === 'PodDisruptionBudget') as Any;
  t.ok(pdb, 'a PodDisruptionBudget');
  t.same(pdb.spec.selector.matchLabels, media.spec.selector.matchLabels, 'it covers the media pods');
  t.ok(pdb.spec.maxUnavailable === 1 || pdb.spec.minAvailable >= 1, 'one media pod at a time');
  t.ok(media.spec.replicas >= 2, 'more than one media pod, so a disruption leaves calls somewhere to go');
});

t.test('Services and the Ingress point at the right pods and ports', async (t) => {
  const services = objects.filter((o) => o.kind === 'Service') as Any[];
  for (const s of services) {
    const d = deployments.find((x) => Object.entries(s.spec.selector).every(([k, v]) => x.spec.template.metadata.labels[k] === v));
    t.ok(d, `${s.metadata.name} selects a Deployment's pods`);
    for (const p of s.spec.ports) t.ok(d?.spec.template.spec.containers.some((c: Any) => c.ports?.some((x: Any) => x.name === p.targetPort)), `${s.metadata.name}: targetPort ${p.targetPort} exists`);
  }
  const ingress = objects.find((o) => o.kind === 'Ingress') as Any;
  t.equal(ingress.metadata.annotations['nginx.ingress.kubernetes.io/proxy-read-timeout'], '14400', '4 h socket timeouts');
  const paths = ingress.spec.rules[0].http.paths as Any[];
  // ingress-nginx tries the longest path first.
  const backendOf = (path: string) => [...paths].sort((a, b) => b.path.length - a.path.length).find((p) => new RegExp(`^${p.path}`).test(path))?.backend.service;
  const id = '3c5ba219-50d5-46f8-a1ea-c788a45de813';
  t.match(backendOf(`/v2/voice/sessions/${id}/stream`), { name: 'voice-media', port: { name: 'media' } });
  t.match(backendOf('/v2/carriers/twilio/stream'), { name: 'voice-media' });
  for (const p of ['/v2/voice/sessions', `/v2/voice/sessions/${id}`, '/v2/carriers/twilio/c1/status', '/console/auth/login', '/docs', '/openapi.json', '/readyz']) {
    t.match(backendOf(p), { name: 'voice-api', port: { name: 'http' } }, `${p} → voice-api`);
  }
  for (const p of paths) t.ok(services.some((s) => s.metadata.name === p.backend.service.name && s.spec.ports.some((x: Any) => x.name === p.backend.service.port.name)), `${p.path}: backend exists`);
});
