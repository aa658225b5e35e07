// The shipped deployment examples work when copied: Kubernetes manifests that apply on their own and
// pass the "restricted" Pod Security Standard, a systemd unit hardened below exposure 3, a cron job
// that can read its secret and write its log, and a Docker image with no strategy baked in.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { loadConfig } from "../../src/engine/config/loader.js";
import { BIN, ensureBuilt, REPO_ROOT } from "../helpers/dist.js";

const KEY = `0x${"4c".repeat(32)}`;
const tmp = mkdtempSync(join(tmpdir(), "hlbot-deploy-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const read = (rel: string): string => readFileSync(join(REPO_ROOT, rel), "utf8");
const README = read("README.md");

// ---- Kubernetes ---------------------------------------------------------------------------------

type Obj = Record<string, unknown>;
interface Manifest {
  file: string;
  kind: string;
  name: string;
  body: Obj;
}

const K8S_DIR = "examples/kubernetes";
const manifests: Manifest[] = readdirSync(join(REPO_ROOT, K8S_DIR))
  .filter((f) => /\.ya?ml$/.test(f))
  .flatMap((file) =>
    parseAllDocuments(read(`${K8S_DIR}/${file}`)).map((doc) => {
      expect(doc.errors, file).toEqual([]);
      const body = doc.toJS() as Obj;
      return { file, kind: String(body.kind), name: String((body.metadata as Obj).name), body };
    }),
  );

/** The pod spec of a workload (Deployment, CronJob), or undefined for other kinds. */
function podSpec(m: Manifest): Obj | undefined {
  const spec = m.body.spec as Obj;
  if (m.kind === "Deployment") return (spec.template as Obj).spec as Obj;
  if (m.kind === "CronJob") return (((spec.jobTemplate as Obj).spec as Obj).template as Obj).spec as Obj;
  return undefined;
}

const workloads = manifests.filter((m) => podSpec(m) !== undefined);

describe("Kubernetes examples", () => {
  it("ship a daemon and a cron job, and no Secret (applying the folder never overwrites the real key)", () => {
    expect(workloads.map((m) => m.kind).sort()).toEqual(["CronJob", "Deployment"]);
    expect(manifests.filter((m) => m.kind === "Secret")).toEqual([]);
    // The Secret they use is created by hand, as the README and each file say.
    expect(README).toMatch(/kubectl create secret generic hlbot-key/);
    for (const m of workloads)
      expect(read(`${K8S_DIR}/${m.file}`)).toMatch(/kubectl create secret generic hlbot-key/);
  });

  it("each file applies alone: every volume and config map it uses is defined in the same file, under a name no other file uses", () => {
    const seen = new Map<string, string>();
    for (const m of manifests) {
      const id = `${m.kind}/${m.name}`;
      expect(seen.get(id), `${id} is defined in ${seen.get(id)} and ${m.file}`).toBeUndefined();
      seen.set(id, m.file);
    }
    for (const w of workloads) {
      const own = (kind: string) =>
        manifests.filter((m) => m.file === w.file && m.kind === kind).map((m) => m.name);
      for (const v of (podSpec(w)!.volumes as Obj[]) ?? []) {
        const claim = (v.persistentVolumeClaim as Obj | undefined)?.claimName;
        if (claim !== undefined)
          expect(own("PersistentVolumeClaim"), `${w.file}: volume ${v.name}`).toContain(claim);
        const map = (v.configMap as Obj | undefined)?.name;
        if (map !== undefined) expect(own("ConfigMap"), `${w.file}: volume ${v.name}`).toContain(map);
      }
    }
    // The daemon and the cron job keep separate state (one lock, one nonce store each).
    const claims = workloads.map((w) =>
      (podSpec(w)!.volumes as Obj[])
        .map((v) => (v.persistentVolumeClaim as Obj | undefined)?.claimName)
        .find(Boolean),
    );
    expect(new Set(claims).size).toBe(workloads.length);
  });

  for (const w of workloads) {
    describe(`${w.file} (${w.kind})`, () => {
      const pod = podSpec(w)!;
      const containers = pod.containers as Obj[];

      it('passes the "restricted" Pod Security Standard', () => {
        const podSec = pod.securityContext as Obj;
        expect(podSec.runAsNonRoot).toBe(true);
        expect(podSec.runAsUser).not.toBe(0);
        expect((podSec.seccompProfile as Obj).type).toBe("RuntimeDefault");
        expect(pod.hostNetwork ?? false).toBe(false);
        expect(pod.hostPID ?? false).toBe(false);
        for (const v of (pod.volumes as Obj[]) ?? []) expect(v.hostPath, `volume ${v.name}`).toBeUndefined();
        for (const c of containers) {
          const sec = c.securityContext as Obj;
          expect(sec.allowPrivilegeEscalation).toBe(false);
          expect(sec.privileged ?? false).toBe(false);
          expect((sec.capabilities as Obj).drop).toEqual(["ALL"]);
          expect((sec.capabilities as Obj).add).toBeUndefined();
          expect(sec.runAsUser ?? podSec.runAsUser).not.toBe(0);
        }
      });

      it("has a read-only root filesystem with the state volume writable, and resource requests and limits", () => {
        for (const c of containers) {
          expect((c.securityContext as Obj).readOnlyRootFilesystem).toBe(true);
          const mounts = c.volumeMounts as Obj[];
          const state = mounts.find((m) => m.mountPath === "/var/lib/hlbot");
          expect(state, "state volume").toBeDefined();
          expect(state!.readOnly ?? false).toBe(false);
          const resources = c.resources as { requests: Obj; limits: Obj };
          expect(resources.requests.cpu).toBeDefined();
          expect(resources.requests.memory).toBeDefined();
          expect(resources.limits.memory).toBeDefined();
        }
      });

      if (w.kind === "CronJob") {
        it("runs in UTC, one at a time, never retried blindly, with a deadline", () => {
          const spec = w.body.spec as Obj;
          const job = (spec.jobTemplate as Obj).spec as Obj;
          expect(spec.timeZone).toBe("Etc/UTC");
          expect(spec.concurrencyPolicy).toBe("Forbid");
          expect(job.backoffLimit).toBe(0);
          expect(job.activeDeadlineSeconds).toBeGreaterThan(0);
          // Stopped before the next run could start (every 15 minutes).
          expect(job.activeDeadlineSeconds as number).toBeLessThan(15 * 60);
        });
      }
    });
  }
});

// ---- systemd ------------------------------------------------------------------------------------

const UNIT = read("examples/systemd/hlbot.service");
const hasAnalyze = spawnSync("systemd-analyze", ["--version"]).status === 0;

describe("systemd example", () => {
  it.runIf(hasAnalyze)("is hardened below exposure 3 under systemd-analyze security", () => {
    const dir = join(tmp, "systemd");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "hlbot.service"), UNIT);
    const out = execFileSync("systemd-analyze", ["security", "--offline=yes", join(dir, "hlbot.service")], {
      encoding: "utf8",
      env: { ...process.env, SYSTEMD_COLORS: "0" },
    });
    const m = /Overall exposure level for hlbot\.service: ([\d.]+)/.exec(out);
    expect(m, out).not.toBeNull();
    expect(Number(m![1])).toBeLessThan(3);
  });

  it("keeps the state in the folder the README names, private to the service", () => {
    expect(UNIT).toMatch(/^StateDirectory=hlbot$/m);
    expect(UNIT).toMatch(/^StateDirectoryMode=0700$/m);
    expect(UNIT).toMatch(/^UMask=0077$/m);
    expect(README).toMatch(/systemd.*\/var\/lib\/hlbot/s);
  });

  it("lets log.file write where the README's logrotate example rotates it (ProtectSystem=strict)", () => {
    // An operator's trial: the README paired the unit with a log file in /var/log it could not write.
    expect(UNIT).toMatch(/^ProtectSystem=strict$/m);
    expect(UNIT).toMatch(/^LogsDirectory=hlbot$/m);
    expect(README).toMatch(/LogsDirectory=hlbot`[^.]*log\.file: \/var\/log\/hlbot\/hlbot\.log/);
  });
});

// ---- cron ---------------------------------------------------------------------------------------

const CRONTAB = read("examples/cron/crontab");
const jobLines = CRONTAB.split("\n").filter((l) => /^[\d*]/.test(l));

describe("cron example", () => {
  it("is a valid /etc/cron.d file: a final newline, a user field, and the job's user can read its secret", () => {
    expect(CRONTAB.endsWith("\n")).toBe(true);
    expect(jobLines).toHaveLength(1);
    const user = jobLines[0]!.split(/\s+/)[5];
    expect(user).toBe("hlbot");
    // The documented install of secret.env: owned by root, readable by the job's group, not by others.
    const install = /install -o root -g (\S+) -m (0\d{3}) \S+ \/etc\/hlbot\/secret\.env/.exec(CRONTAB);
    expect(install).not.toBeNull();
    expect(install![1]).toBe(user);
    const mode = Number.parseInt(install![2]!, 8);
    expect(mode & 0o040).toBe(0o040);
    expect(mode & 0o007).toBe(0);
    // Its log folder belongs to the job's user.
    expect(CRONTAB).toMatch(new RegExp(`install -d -o ${user} -g ${user} -m 0700 \\S* ?/var/log/hlbot`));
  });

  it("the job's command line runs: it reads the secret, finds the bot file and writes its log", () => {
    ensureBuilt(["cli/main.js"]);
    const root = join(tmp, "cron");
    for (const d of ["etc", "state", "log", "strategies"]) mkdirSync(join(root, d), { recursive: true });
    writeFileSync(join(root, "etc", "secret.env"), `HLBOT_PRIVATE_KEY=${KEY}\n`, { mode: 0o640 });
    // Live with no enabled strategy: `once` says so and exits 2 (its check of running TWAPs finds no venue
    // at port 9: the configuration problem is the code).
    writeFileSync(
      join(root, "etc", "bot.yaml"),
      [
        "network: testnet",
        "mode: live",
        "baseUrl: http://127.0.0.1:9",
        `strategies: ${join(root, "strategies")}`,
        `state: ${join(root, "state")}`,
        "limits: { maxOrderUsd: 100, maxDailyNotionalUsd: 1000, maxStakeMovePerDay: 10 }",
        "",
      ].join("\n"),
    );
    const command = jobLines[0]!
      .split(/\s+/)
      .slice(6)
      .join(" ")
      .replaceAll("/etc/hlbot", join(root, "etc"))
      .replaceAll("/var/lib/hlbot", join(root, "state"))
      .replaceAll("/var/log/hlbot", join(root, "log"))
      .replaceAll("/opt/hlbot/bin/hlbot.js", BIN);
    const r = spawnSync("bash", ["-c", command], {
      encoding: "utf8",
      timeout: 20_000,
      env: { PATH: process.env.PATH },
    });
    expect(r.status).toBe(2);
    const log = readFileSync(join(root, "log", "once.log"), "utf8");
    expect(log).toMatch(/no enabled strategy to run/);
    expect(log).not.toContain(KEY.slice(2));
  });
});

// ---- Docker -------------------------------------------------------------------------------------

const DOCKERFILE = read("Dockerfile");

describe("Docker image", () => {
  it("carries OCI labels, runs as non-root, bakes in no strategy and prunes the native build's leftovers", () => {
    for (const label of ["title", "description", "version", "licenses", "source"]) {
      expect(DOCKERFILE).toMatch(new RegExp(`org\\.opencontainers\\.image\\.${label}=`));
    }
    expect(DOCKERFILE).toMatch(/^USER node$/m);
    expect(DOCKERFILE).not.toMatch(/^COPY .*\/etc\/hlbot\/strategies/m);
    const prune = /rm -rf ([^&]*)&& test -f build\/Release\/better_sqlite3\.node/s.exec(DOCKERFILE);
    expect(prune).not.toBeNull();
    expect(prune![1]).toMatch(/\bdeps\b/);
    expect(prune![1]).toMatch(/build\/Release\/obj\b/);
    expect(prune![1]).not.toMatch(/better_sqlite3\.node/);
  });

  describe("config/docker.yaml", () => {
    const empty = join(tmp, "no-strategies");
    beforeAll(() => mkdirSync(empty, { recursive: true }));

    it("takes the account and base URL from HLBOT_ACCOUNT and HLBOT_BASE_URL, and leaves them out when unset", async () => {
      const env = { HLBOT_STRATEGIES: join(REPO_ROOT, "strategies") };
      const plain = await loadConfig(join(REPO_ROOT, "config/docker.yaml"), env);
      expect(plain.account).toBeUndefined();
      expect(plain.baseUrl).toBeUndefined();
      const set = await loadConfig(join(REPO_ROOT, "config/docker.yaml"), {
        ...env,
        HLBOT_ACCOUNT: "0x00000000000000000000000000000000000000AB",
        HLBOT_BASE_URL: "http://127.0.0.1:3001",
      });
      expect(set.account).toBe("0x00000000000000000000000000000000000000ab");
      expect(set.baseUrl).toBe("http://127.0.0.1:3001");
    });

    it("refuses to start live with no strategies mounted, saying where to mount them", () => {
      ensureBuilt(["cli/main.js"]);
      const keyFile = join(tmp, "docker-key");
      writeFileSync(keyFile, `${KEY}\n`, { mode: 0o600 });
      const r = spawnSync(process.execPath, [BIN, "run", "--config", join(REPO_ROOT, "config/docker.yaml")], {
        encoding: "utf8",
        timeout: 20_000,
        env: {
          PATH: process.env.PATH,
          HLBOT_MODE: "live",
          HLBOT_STRATEGIES: empty,
          HLBOT_PRIVATE_KEY_FILE: keyFile,
          HLBOT_BASE_URL: "http://127.0.0.1:9",
        },
      });
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/no enabled strategy to schedule in .*no-strategies/);
      expect(r.stderr).toMatch(/mount your strategies folder at \/etc\/hlbot\/strategies/);
      expect(r.stderr + r.stdout).not.toContain(KEY.slice(2));
    });
  });
});
