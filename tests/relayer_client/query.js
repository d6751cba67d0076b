// The IBC queries a relayer makes, through @confio/relayer's own IbcClient (its query client: abci_query on the
// ibc.core.*.v1.Query services): stdin {rpc, mnemonic, prefix, gasPrice, client, connection, port, channel},
// stdout {name: base64 of the response protobuf}.
// The package index loads its test helpers (sinon, a dev dependency): take the module directly.
const { IbcClient } = require("@confio/relayer/build/lib/ibcclient");
const { DirectSecp256k1HdWallet } = require("@cosmjs/proto-signing");
const { GasPrice } = require("@cosmjs/stargate");
const clientQ = require("cosmjs-types/ibc/core/client/v1/query");
const connectionQ = require("cosmjs-types/ibc/core/connection/v1/query");
const channelQ = require("cosmjs-types/ibc/core/channel/v1/query");

async function main(args) {
  const signer = await DirectSecp256k1HdWallet.fromMnemonic(args.mnemonic, { prefix: args.prefix });
  const [{ address }] = await signer.getAccounts();
  const ibc = await IbcClient.connectWithSigner(args.rpc, signer, address,
                                                { gasPrice: GasPrice.fromString(args.gasPrice) });
  const q = ibc.query.ibc;
  const asked = {
    clientState: [clientQ.QueryClientStateResponse, q.client.state(args.client)],
    clientStates: [clientQ.QueryClientStatesResponse, q.client.states()],
    consensusStates: [clientQ.QueryConsensusStatesResponse, q.client.consensusStates(args.client)],
    clientParams: [clientQ.QueryClientParamsResponse, q.client.params()],
    connection: [connectionQ.QueryConnectionResponse, q.connection.connection(args.connection)],
    connections: [connectionQ.QueryConnectionsResponse, q.connection.connections()],
    clientConnections: [connectionQ.QueryClientConnectionsResponse, q.connection.clientConnections(args.client)],
    connectionClientState: [connectionQ.QueryConnectionClientStateResponse,
                            q.connection.clientState(args.connection)],
  };
  if (args.channel) {
    Object.assign(asked, {
      channel: [channelQ.QueryChannelResponse, q.channel.channel(args.port, args.channel)],
      channels: [channelQ.QueryChannelsResponse, q.channel.channels()],
      connectionChannels: [channelQ.QueryConnectionChannelsResponse,
                           q.channel.connectionChannels(args.connection)],
      channelClientState: [channelQ.QueryChannelClientStateResponse,
                           q.channel.clientState(args.port, args.channel)],
      nextSequenceReceive: [channelQ.QueryNextSequenceReceiveResponse,
                            q.channel.nextSequenceReceive(args.port, args.channel)],
    });
  }
  const out = {};
  for (const [name, [type, pending]] of Object.entries(asked)) {
    out[name] = Buffer.from(type.encode(await pending).finish()).toString("base64");
  }
  // The consensus state at the client's latest height (latest_height: true), as the relayer checks a link's.
  out.consensusState = Buffer.from(clientQ.QueryConsensusStateResponse.encode(
    await q.client.consensusState(args.client)).finish()).toString("base64");
  return out;
}

let input = "";
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  main(JSON.parse(input)).then((out) => console.log(JSON.stringify(out)),
                                (e) => { console.error(e); process.exit(1); });
});
