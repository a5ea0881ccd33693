import { Client } from 'minio';
import type { ObjectStore } from './object-store.ts';

export interface S3Settings {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  region: string;
}

/** MinIO or any S3-compatible store. */
export class S3ObjectStore implements ObjectStore {
  private readonly client: Client;

  constructor(private readonly settings: S3Settings) {
    const url = new URL(settings.endpoint);
    this.client = new Client({
      endPoint: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      useSSL: url.protocol === 'https:',
      accessKey: settings.accessKey,
      secretKey: settings.secretKey,
      // Without a region the client asks the server for one before it signs anything.
      region: settings.region,
    });
  }

  async ensureReady() {
    if (!(await this.client.bucketExists(this.settings.bucket))) {
      await this.client.makeBucket(this.settings.bucket, this.settings.region);
    }
  }

  async isHealthy() {
    try {
      return await this.client.bucketExists(this.settings.bucket);
    } catch {
      return false;
    }
  }
}
