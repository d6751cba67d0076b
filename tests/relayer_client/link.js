// One step of @confio/relayer's Link library between two chains: stdin {a, b (CometBFT RPC URLs), mnemonic, prefix,
// gasPrice, op, connA, connB; prefixB and gasPriceB when B differs, as ibc-go's simd}; op "open" makes clients, a
// connection and a transfer channel (UNORDERED, ics20-1) and prints their ids, op "relay" runs Link.relayAll once
// (packets, then acks, then timeouts, both ways) and prints what it relayed. The relayer's log goes to stderr.
// The package index loads its test helpers (sinon, a dev dependency): take the modules directly.
const { IbcClient } = require("@confio/relayer/build/lib/ibcclient");
const { Link } = require("@confio/relayer/build/lib/link");
const { DirectSecp256k1HdWallet } = require("@cosmjs/proto-signing");
const { GasPrice } = require("@cosmjs/stargate");
const { Order } = require("cosmjs-types/ibc/core/channel/v1/channel");

const logger = Object.fromEntries(["error", "warn", "info", "verbose", "debug"].map(
  (level) => [level, (message, meta) => {
    process.stderr.write(`${level}: ${message}${meta ? " " + JSON.stringify(meta, (_, v) => (typeof v === "bigint" ? v.toString() : v)) : ""}\n`);
    return logger;
  }]));

// ts-relayer 0.12 fills MsgTimeout's next_sequence_recv from the NextSequenceReceive query, which ibc-go v8 answers
// 0 for an UNORDERED channel, and MsgTimeout refuses 0. ibc-go v8 proves an UNORDERED packet's timeout by its
// missing receipt alone and reads the field nowhere else, so this relays the timeout as Link.timeoutPackets does
// with the packet's own sequence there.
async function timeoutPackets(source, packets) {
  this.logger.info(`Timeout ${packets.length} packets sent from ${this.chain(source)}`);
  if (packets.length === 0) return null;
  const { src, dest } = this.getEnds(source);
  await dest.client.waitOneBlock();
  const headerHeight = await this.updateClient(source === "A" ? "B" : "A");
  const rawPackets = packets.map(({ packet }) => packet);
  const proofs = await Promise.all(rawPackets.map(
    (packet) => dest.client.getTimeoutProof({ originalPacket: packet, acknowledgement: new Uint8Array() },
                                            headerHeight)));
  const { height } = await src.client.timeoutPackets(rawPackets, proofs, rawPackets.map((p) => p.sequence),
                                                     headerHeight);
  return height;
}

async function connect(rpc, args, prefix, gasPrice) {
  const signer = await DirectSecp256k1HdWallet.fromMnemonic(args.mnemonic, { prefix });
  const [{ address }] = await signer.getAccounts();
  // Polls for a tx's block every 300 ms (cosmjs' default is 3 s), as ts-relayer's own test helpers do.
  return IbcClient.connectWithSigner(rpc, signer, address, {
    gasPrice: GasPrice.fromString(gasPrice), estimatedBlockTime: 300, estimatedIndexerTime: 100,
    broadcastPollIntervalMs: 300 });
}

async function main(args) {
  const [a, b] = await Promise.all([connect(args.a, args, args.prefix, args.gasPrice),
                                    connect(args.b, args, args.prefixB ?? args.prefix,
                                            args.gasPriceB ?? args.gasPrice)]);
  if (args.op === "open") {
    const link = await Link.createWithNewConnections(a, b, logger);
    const channel = await link.createChannel("A", "transfer", "transfer", Order.ORDER_UNORDERED, "ics20-1");
    return { connA: link.endA.connectionID, connB: link.endB.connectionID, channelA: channel.src.channelId,
             channelB: channel.dest.channelId };
  }
  const link = await Link.createWithExistingConnections(a, b, args.connA, args.connB, logger);
  link.timeoutPackets = timeoutPackets;
  const info = await link.relayAll();
  return { packetsFromA: info.packetsFromA, packetsFromB: info.packetsFromB, acksFromA: info.acksFromA.length,
           acksFromB: info.acksFromB.length };
}

let input = "";
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  main(JSON.parse(input)).then((out) => { console.log(JSON.stringify(out)); process.exit(0); },
                                (e) => { console.error(e); process.exit(1); });
});
