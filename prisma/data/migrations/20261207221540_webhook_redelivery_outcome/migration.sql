-- AlterTable
ALTER TABLE "webhook_deliveries" ADD COLUMN     "status_before_redelivery" TEXT;
