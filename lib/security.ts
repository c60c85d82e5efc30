// Keys and secrets: the credentials KMS key, the admin API key, the script grant key, the platform's Solana wallet.
import { RemovalPolicy } from 'aws-cdk-lib';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

export class Security extends Construct {
  /** Envelope key for users' stored upstream credentials. */
  readonly credentialsKey: Key;
  /** The X-Admin-Key value; the secret string is the key itself (functions/platform/admin-key.ts reads it as is). */
  readonly adminKeySecret: Secret;
  /** HMAC key of the grants Lambda-deployed script runs carry to the resource-call function (functions/scripts/runs/run-grant.ts). */
  readonly scriptGrantKeySecret: Secret;
  readonly walletSecret: Secret;
  /** Pays the fees of reference-client payments and payouts; holds only SOL (docs/payments.md). */
  readonly feePayerSecret: Secret;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.credentialsKey = new Key(this, 'CredentialsKey', {
      description: "Encrypts data keys for users' stored resource credentials",
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.adminKeySecret = new Secret(this, 'AdminKey', {
      description: 'Admin API key (X-Admin-Key) of the platform',
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
    });
    this.scriptGrantKeySecret = new Secret(this, 'ScriptGrantKey', {
      description: 'Signs the short-lived grants of script runs deployed as Lambda functions',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
    });
    // Secrets Manager cannot generate an ed25519 keypair: the operator puts the real secret key after deploy.
    // Only the payout run reads it (it signs payouts); offers take the address from the stack's context.
    this.walletSecret = new Secret(this, 'PlatformWallet', {
      description: 'Platform Solana wallet secret key (put the real value after deploy)',
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.feePayerSecret = new Secret(this, 'FeePayer', {
      description: 'Solana fee-payer secret key for reference x402 payments and payouts (put the real value after deploy)',
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }
}
