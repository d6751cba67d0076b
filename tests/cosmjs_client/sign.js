// One job for @cosmjs/stargate's SigningStargateClient with an amino-only signer, read as JSON on stdin:
// {"url", "mnemonic", "prefix", "gasPrice", "signer": "hd" | "eth", "steps": [{"op", ...}]}.
// "hd" is @cosmjs' Secp256k1HdWallet (m/44'/118'/0'/0/0); "eth" is an eth_secp256k1 OfflineAminoSigner written here
// (m/44'/60'/0'/0/0, an Ethereum address) that signs the amino sign doc's EIP-712 hash as MetaMask would, the form
// Evmos v20's eth_secp256k1 key verifies; its txs carry the key as /ethermint.crypto.v1.ethsecp256k1.PubKey.
// Each step's gas is simulated first. Prints {"address", "results": [...]}.
"use strict";

const { Secp256k1HdWallet, encodeEthSecp256k1Pubkey, rawEthSecp256k1PubkeyToRawAddress, serializeSignDoc } =
  require("@cosmjs/amino");
const { Bip39, EnglishMnemonic, Secp256k1, Slip10, Slip10Curve, stringToPath } = require("@cosmjs/crypto");
const { toBase64, toBech32 } = require("@cosmjs/encoding");
const { GasPrice, SigningStargateClient, calculateFee } = require("@cosmjs/stargate");
const { SignTypedDataVersion, TypedDataUtils } = require("@metamask/eth-sig-util");
const { AuthInfo, TxRaw } = require("cosmjs-types/cosmos/tx/v1beta1/tx");
const { TextProposal } = require("cosmjs-types/cosmos/gov/v1beta1/gov");

const EVMOS_PUBKEY = "/ethermint.crypto.v1.ethsecp256k1.PubKey";

// Evmos v20's WrapTxToTypedData (ethereum/eip712): the doc's messages become msg0, msg1...; each message's types
// come from its own JSON (fields reverse-sorted, arrays by their first element, numbers int64), named from the
// amino type and the field path, indexed on a clash.
function title(word) {
  return word.replace(/(^|[^0-9A-Za-z'])([a-z])/g, (_, before, letter) => before + letter.toUpperCase());
}

function sanitize(path) {
  return path.split(".").map((part) => (part === "_" ? "Type" : part.split("_").map(title).join(""))).join("");
}

function addTypes(types, root, prefix, payload) {
  const fields = [];
  for (const name of Object.keys(payload).sort().reverse()) {
    let value = payload[name];
    let suffix = "";
    if (Array.isArray(value)) {
      if (value.length === 0) {
        fields.push({ name, type: "string[]" });
        continue;
      }
      value = value[0];
      suffix = "[]";
    }
    if (typeof value === "boolean") fields.push({ name, type: "bool" + suffix });
    else if (typeof value === "number") fields.push({ name, type: "int64" + suffix });
    else if (typeof value === "string") fields.push({ name, type: "string" + suffix });
    else if (value && typeof value === "object") {
      fields.push({ name, type: sanitize(addTypes(types, root, `${prefix}.${name}`, value)) + suffix });
    }
  }
  const typeDef = prefix === "_" ? root : sanitize(prefix);
  for (let index = 0; index < 1000; index++) {
    const indexed = typeDef + index;
    if (!types[indexed]) {
      types[indexed] = fields;
      return indexed;
    }
    if (JSON.stringify(types[indexed]) === JSON.stringify(fields)) return indexed;
  }
  throw new Error("exceeded maximum number of duplicates for a single type definition");
}

function typedData(signDoc) {
  const payload = JSON.parse(Buffer.from(serializeSignDoc(signDoc)).toString());
  const { msgs, ...message } = payload;
  const types = {
    EIP712Domain: [{ name: "name", type: "string" }, { name: "version", type: "string" },
                   { name: "chainId", type: "uint256" }, { name: "verifyingContract", type: "string" },
                   { name: "salt", type: "string" }],
    Tx: [{ name: "account_number", type: "string" }, { name: "chain_id", type: "string" },
         { name: "fee", type: "Fee" }, { name: "memo", type: "string" }, { name: "sequence", type: "string" }],
    Fee: [{ name: "amount", type: "Coin[]" }, { name: "gas", type: "string" }],
    Coin: [{ name: "denom", type: "string" }, { name: "amount", type: "string" }],
  };
  msgs.forEach((msg, i) => {
    message[`msg${i}`] = msg;
    types.Tx.push({ name: `msg${i}`, type: addTypes(types, "Type" + msg.type.split("/").pop(), "_", msg) });
  });
  const chainId = Number(/^[a-z]+_([1-9][0-9]*)-[1-9][0-9]*$/.exec(payload.chain_id)[1]);
  const domain = { name: "Cosmos Web3", version: "1.0.0", chainId, verifyingContract: "cosmos", salt: "0" };
  return { types, primaryType: "Tx", domain, message };
}

class EthAminoSigner {
  static async fromMnemonic(mnemonic, prefix) {
    const seed = await Bip39.mnemonicToSeed(new EnglishMnemonic(mnemonic));
    const { privkey } = Slip10.derivePath(Slip10Curve.Secp256k1, seed, stringToPath("m/44'/60'/0'/0/0"));
    const pubkey = Secp256k1.compressPubkey((await Secp256k1.makeKeypair(privkey)).pubkey);
    return new EthAminoSigner(privkey, pubkey, toBech32(prefix, rawEthSecp256k1PubkeyToRawAddress(pubkey)));
  }

  constructor(privkey, pubkey, address) {
    this.privkey = privkey;
    this.pubkey = pubkey;
    this.address = address;
  }

  async getAccounts() {
    return [{ address: this.address, algo: "eth_secp256k1", pubkey: this.pubkey }];
  }

  async signAmino(signerAddress, signDoc) {
    if (signerAddress !== this.address) throw new Error(`no key for ${signerAddress}`);
    const hash = TypedDataUtils.eip712Hash(typedData(signDoc), SignTypedDataVersion.V4);
    const signature = await Secp256k1.createSignature(hash, this.privkey);
    // [R || S || V] with MetaMask's V (27/28).
    const bytes = new Uint8Array([...signature.toFixedLength().slice(0, 64), signature.recovery + 27]);
    return { signed: signDoc, signature: { pub_key: encodeEthSecp256k1Pubkey(this.pubkey), signature: toBase64(bytes) } };
  }
}

// @cosmjs writes an eth_secp256k1 key under cosmos/evm's type URL; Evmos' is ethermint's. The amino signature
// does not cover the signer infos, so the tx is re-encoded with Evmos' URL before it is broadcast.
function withEvmosPubkey(txRaw) {
  const authInfo = AuthInfo.decode(txRaw.authInfoBytes);
  authInfo.signerInfos[0].publicKey.typeUrl = EVMOS_PUBKEY;
  return TxRaw.encode(TxRaw.fromPartial({ ...txRaw, authInfoBytes: AuthInfo.encode(authInfo).finish() })).finish();
}

function messageOf(step, address) {
  switch (step.op) {
    case "send":
      return { typeUrl: "/cosmos.bank.v1beta1.MsgSend",
               value: { fromAddress: address, toAddress: step.to, amount: [step.amount] } };
    case "delegate":
      return { typeUrl: "/cosmos.staking.v1beta1.MsgDelegate",
               value: { delegatorAddress: address, validatorAddress: step.validator, amount: step.amount } };
    case "withdraw":
      return { typeUrl: "/cosmos.distribution.v1beta1.MsgWithdrawDelegatorReward",
               value: { delegatorAddress: address, validatorAddress: step.validator } };
    case "setWithdrawAddress":
      return { typeUrl: "/cosmos.distribution.v1beta1.MsgSetWithdrawAddress",
               value: { delegatorAddress: address, withdrawAddress: step.to } };
    case "fundCommunityPool":
      return { typeUrl: "/cosmos.distribution.v1beta1.MsgFundCommunityPool",
               value: { depositor: address, amount: [step.amount] } };
    case "submitProposal":
      return { typeUrl: "/cosmos.gov.v1beta1.MsgSubmitProposal",
               value: { proposer: address, initialDeposit: [step.deposit],
                        content: { typeUrl: "/cosmos.gov.v1beta1.TextProposal",
                                   value: TextProposal.encode({ title: step.title,
                                                                description: step.description }).finish() } } };
    case "vote":
      return { typeUrl: "/cosmos.gov.v1beta1.MsgVote",
               value: { proposalId: BigInt(step.proposalId), voter: address, option: step.option } };
    case "deposit":
      return { typeUrl: "/cosmos.gov.v1beta1.MsgDeposit",
               value: { proposalId: BigInt(step.proposalId), depositor: address, amount: [step.amount] } };
    default:
      throw new Error(`unknown op ${step.op}`);
  }
}

async function main() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const job = JSON.parse(Buffer.concat(chunks).toString());
  const signer = job.signer === "eth" ? await EthAminoSigner.fromMnemonic(job.mnemonic, job.prefix)
    : await Secp256k1HdWallet.fromMnemonic(job.mnemonic, { prefix: job.prefix });
  const [{ address }] = await signer.getAccounts();
  const gasPrice = GasPrice.fromString(job.gasPrice);
  const client = await SigningStargateClient.connectWithSigner(job.url, signer, { gasPrice });
  const results = [];
  let lastProposal;
  for (const step of job.steps) {
    // "last": the proposal an earlier step of this job submitted.
    const messages = step.op === "sendIbcTokens" ? []
      : [messageOf(step.proposalId === "last" ? { ...step, proposalId: lastProposal } : step, address)];
    const memo = step.memo || "";
    let result;
    if (step.op === "sendIbcTokens") {
      // @cosmjs' own MsgTransfer, amino-signed through its ibc converters (cosmos-sdk/MsgTransfer).
      result = await client.sendIbcTokens(address, step.to, step.amount, step.port, step.channel,
                                          step.timeoutHeight, step.timeoutSeconds, "auto", memo);
    } else if (job.signer === "eth") {
      // What signAndBroadcast does for "auto" (simulate, times 1.4), then sign and re-encode the key's URL.
      // @cosmjs simulates with the key written as a Cosmos one; the node charges it as the eth_secp256k1 key.
      const gas = Math.round((await client.simulate(address, messages, memo)) * 1.4);
      result = await client.broadcastTx(withEvmosPubkey(
        await client.sign(address, messages, calculateFee(gas, gasPrice), memo)));
    } else {
      result = await client.signAndBroadcast(address, messages, "auto", memo);
    }
    const proposal = result.events.flatMap((e) => (e.type === "submit_proposal" ? e.attributes : []))
      .find((a) => a.key === "proposal_id");
    if (proposal) lastProposal = proposal.value;
    results.push({ op: step.op, code: result.code, height: result.height, transactionHash: result.transactionHash,
                   rawLog: result.rawLog, proposalId: proposal ? proposal.value : undefined });
  }
  client.disconnect();
  process.stdout.write(JSON.stringify({ address, results }));
}

main().catch((e) => {
  process.stderr.write(String(e && e.stack || e));
  process.exit(1);
});
