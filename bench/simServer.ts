// Child process of the info benchmark: serves the simulated venue on 127.0.0.1 in real time from a
// scenario file (argv[2]), prints its URL as one line on stdout, and stops when stdin closes (so it can
// never outlive the benchmark) or on SIGTERM. The server runs apart from the clients being measured, as
// a real venue would, so its CPU time does not land on theirs.
import { startSimulator } from "../src/simulator/index.js";

const scenario = process.argv[2];
if (!scenario) {
  process.stderr.write("usage: simServer <scenario.yaml>\n");
  process.exit(2);
}
const sim = await startSimulator({ scenario, clock: "real", rateLimit: false });
process.stdout.write(`${sim.url}\n`);
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await sim.stop();
  process.exit(0);
};
process.stdin.on("end", stop);
process.stdin.on("close", stop);
process.stdin.resume();
process.on("SIGTERM", stop);
